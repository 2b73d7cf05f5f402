import { readFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoAccount } from '../../src/lifecycle';
import type { RunningServer } from '../../src/server';
import { CHROMIUM, chromiumInstalled, screenshot } from './harness';
import { signIn, startTour, type Tour, WIDTHS } from './tour';

// The overview a newcomer meets on a fresh install, at a laptop's and a phone's width: the demo account's
// labelled sample data gives every card a change against the previous period; the periods (1 h to 30 d) fill
// their charts and date multi-day axes; errors are grouped and filtered, with the view in the URL across a
// reload; the usage and the errors download as CSV; Live mode's empty state asks for a live key; and the
// sample data goes in one action.

const hasChromium = chromiumInstalled();
if (!hasChromium) {
  console.warn(`Browser tests skipped: ${CHROMIUM} is missing. Install it with: apt-get install -y chromium`);
}

const MONTH = /(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{1,2}/;

function card(page: Page, label: string) {
  return page.getByRole('article', { name: label });
}

/** The milliseconds of a duration as the dashboard prints it (`850 ms`, `1.2 s`). */
function ms(text: string): number {
  const m = /([\d.,]+)\s*(ms|s)\b/.exec(text);
  if (!m?.[1]) throw new Error(`no duration in ${JSON.stringify(text)}`);
  const n = Number(m[1].replace(/,/g, ''));
  return m[2] === 's' ? n * 1000 : n;
}

async function period(page: Page, label: string): Promise<void> {
  await page.getByRole('button', { name: label, exact: true }).click();
  await page.getByRole('button', { name: label, exact: true, pressed: true }).waitFor();
  await page.locator('[aria-busy="false"]').first().waitFor();
}

describe.skipIf(!hasChromium)('the overview a newcomer sees, in Chromium at 1440 and 390 px', () => {
  let server: RunningServer;
  let browser: Browser;
  let demo: DemoAccount;
  let tour: Tour | undefined;

  beforeAll(async () => {
    tour = await startTour();
    ({ server, browser, demo } = tour);
  });
  afterAll(() => tour?.close());

  async function open(width: number, height: number): Promise<Page> {
    const context = await browser.newContext({
      baseURL: server.url,
      viewport: { width, height },
      deviceScaleFactor: 1,
      reducedMotion: 'reduce',
      acceptDownloads: true,
    });
    const page = await context.newPage();
    await signIn(page, demo.email, demo.password);
    return page;
  }

  for (const { name, width, height } of WIDTHS) {
    it(`sample data, changes, periods, grouped and filtered errors, CSV and Live mode (${name})`, async () => {
      const page = await open(width, height);
      const errors: string[] = [];
      page.on('pageerror', (err) => errors.push(err.message));

      // Item 2: labelled sample data, and every card with a previous period says how it changed.
      await page.getByRole('heading', { name: 'Sample data' }).waitFor();
      await page.getByRole('table', { name: 'Requests per endpoint' }).waitFor();
      for (const label of ['Total requests', 'Success rate', 'Average latency', 'Total tokens', 'Spend']) {
        await expect(card(page, label).textContent()).resolves.toMatch(/vs previous period/);
      }
      await screenshot(page, `overview-24h-${name}`);

      // Item 1: the p95 is shown, and the same sample traffic gives a p95 under 2 s whatever the period.
      const p95s: number[] = [];
      for (const label of ['24 h', '7 d', '30 d']) {
        await period(page, label);
        const hint = (await card(page, 'Average latency').textContent()) ?? '';
        expect(hint).toMatch(/p95/);
        p95s.push(ms(hint.slice(hint.indexOf('p95'))));
      }
      for (const p of p95s) expect(p).toBeLessThan(2_000);

      // Item 3: the 7-day axes carry dates; the 1-hour period exists and its charts are drawn.
      await period(page, '7 d');
      const axis7d = await page.locator('.chart .axes').first().textContent();
      expect(axis7d).toMatch(MONTH);
      await screenshot(page, `overview-7d-${name}`);
      await period(page, '1 h');
      await expect(page.locator('.chart svg').count()).resolves.toBeGreaterThanOrEqual(3);
      await screenshot(page, `overview-1h-${name}`);
      expect(new URL(page.url()).searchParams.get('period')).toBe('1h');

      // Item 8: identical errors are one row with their count; a key filter lives in the URL across a reload.
      await period(page, '7 d');
      const errorsTable = page.getByRole('table', { name: 'Recent errors' });
      await errorsTable.waitFor();
      const counts = (await errorsTable.locator('tbody td.num').allInnerTexts()).map((t) =>
        Number(t.replace(/\D/g, '')),
      );
      expect(counts.length).toBeGreaterThan(0);
      expect(Math.max(...counts)).toBeGreaterThan(1);
      const keySelect = page.getByRole('combobox', { name: 'Key' });
      const keyOption = await keySelect
        .locator('option', { hasText: 'Sample traffic' })
        .first()
        .getAttribute('value');
      expect(keyOption).toBeTruthy();
      await keySelect.selectOption(keyOption as string);
      await page.waitForURL((url) => url.searchParams.get('key') === keyOption);
      const endpointSelect = page.getByRole('combobox', { name: 'Endpoint' });
      await endpointSelect.selectOption('POST /v1/chat/completions');
      await page.waitForURL((url) => url.searchParams.get('endpoint') === 'POST /v1/chat/completions');
      await page.reload();
      await page.getByRole('table', { name: 'Requests per endpoint' }).waitFor();
      await expect(page.getByRole('combobox', { name: 'Key' }).inputValue()).resolves.toBe(keyOption);
      await expect(page.getByRole('combobox', { name: 'Endpoint' }).inputValue()).resolves.toBe(
        'POST /v1/chat/completions',
      );
      await page.getByRole('button', { name: '7 d', exact: true, pressed: true }).waitFor();
      const endpointRows = await page
        .getByRole('table', { name: 'Requests per endpoint' })
        .locator('tbody tr')
        .allInnerTexts();
      expect(endpointRows).toHaveLength(1);
      expect(endpointRows[0]).toContain('/v1/chat/completions');
      await screenshot(page, `overview-filtered-${name}`);

      // Item 9: the usage table and the errors download as CSV.
      const [usageCsv] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Download CSV' }).first().click(),
      ]);
      const usage = await readFile((await usageCsv.path()) as string, 'utf8');
      expect(usage.replace(/^\uFEFF/, '').split(/\r?\n/)[0]).toBe(
        'method,path,requests,average_latency_ms,success_rate,tokens,cost_USD',
      );
      expect(usage).toContain('/v1/chat/completions');
      const [errorsCsv] = await Promise.all([
        page.waitForEvent('download'),
        // The errors' button is the page's last (the endpoints' and the deployments' come before it).
        page.getByRole('button', { name: 'Download CSV' }).last().click(),
      ]);
      const errorLines = (await readFile((await errorsCsv.path()) as string, 'utf8'))
        .replace(/^\uFEFF/, '')
        .trim()
        .split(/\r?\n/);
      expect(errorLines[0]).toBe('occurred_at,status,code,method,path,message,deployment,key,request_id');
      expect(errorLines.length - 1).toBeGreaterThanOrEqual(2);

      // Item 9: Live mode has no traffic yet, and its empty state asks for a live key.
      await page.getByRole('combobox', { name: 'Key' }).selectOption('');
      await page.getByRole('button', { name: 'Live', exact: true }).click();
      await page.getByRole('heading', { name: 'Make your first call' }).waitFor();
      await page.getByRole('link', { name: 'Create a live key' }).waitFor();
      await screenshot(page, `overview-live-empty-${name}`);

      expect(errors).toEqual([]);
      await page.context().close();
    });
  }

  it('removes the sample data in one action, and every figure goes with it', async () => {
    const page = await open(1440, 900);
    await page.getByRole('heading', { name: 'Sample data' }).waitFor();
    await page.getByRole('button', { name: 'Remove sample data' }).click();
    await page.getByRole('status').filter({ hasText: 'Sample data removed' }).waitFor();
    await expect(page.getByRole('heading', { name: 'Sample data' }).count()).resolves.toBe(0);
    await page.getByRole('heading', { name: 'Make your first call' }).waitFor();
    await screenshot(page, 'overview-sample-removed-desktop');
    await page.context().close();
  });
});
