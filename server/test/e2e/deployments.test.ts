import { readFile } from 'node:fs/promises';
import { eq } from 'drizzle-orm';
import OpenAI from 'openai';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usageEvents } from '../../src/db/schema';
import type { RunningServer } from '../../src/server';
import type { Services } from '../../src/services';
import { catalogueEntry, writeCatalogue } from '../helpers/chat-setup';
import { type FakeDeployment, startFakeDeployment } from '../helpers/fake-deployments';
import { createAccount, createKey } from '../helpers/fixtures';
import type { TestServer } from '../helpers/server';
import { keysOf, keyVariable, messages } from '../routing/setup';
import {
  CHROMIUM,
  chromiumInstalled,
  dashboardBuild,
  launchChromium,
  screenshot,
  startDashboardServer,
} from './harness';
import { signIn, WIDTHS } from './tour';

// The overview's Deployments panel with a model routed across two fake OpenAI-compatible upstreams: live calls
// through the real server and the openai SDK, one deployment failing over to the other, then the panel in
// Chromium shows each deployment's requests, errors, latency and spend, for the period and mode chosen.

const hasChromium = chromiumInstalled();
if (!hasChromium) {
  console.warn(`Browser tests skipped: ${CHROMIUM} is missing. Install it with: apt-get install -y chromium`);
}

describe.skipIf(!hasChromium)('the overview shows traffic per deployment, in Chromium', () => {
  let east: FakeDeployment;
  let west: FakeDeployment;
  let server: RunningServer & { services: Services };
  let browser: Browser;
  let email: string;
  let password: string;

  beforeAll(async () => {
    [east, west] = (await Promise.all(['east', 'west'].map(startFakeDeployment))) as [
      FakeDeployment,
      FakeDeployment,
    ];
    const models = writeCatalogue([
      catalogueEntry('routed', 'openai', 'catalogue-model', {
        // 1,000 per million input and 2,000 per million output: a call's 9 + 3 tokens cost 0.015.
        pricing: [{ from: '2021-01-01', input: 1_000, output: 2_000 }],
        deployments: [east, west].map((fake) => ({
          name: fake.name,
          base_url: fake.url,
          api_key_env: keyVariable(fake),
        })),
        routing: { breaker: { failures: 1_000, min_requests: 1_000 } },
      }),
    ]);
    server = await startDashboardServer(dashboardBuild(), {
      MODELS_FILE: models,
      ...keysOf([east, west]),
    });
    const testServer = { ...server, databaseUrl: undefined } satisfies TestServer;
    const account = await createAccount(testServer, { plan: 'pro' });
    ({ email, password } = account);
    const key = await createKey(testServer, account.id, 'live', 'backend');
    const sdk = new OpenAI({ apiKey: key.key, baseURL: `${server.url}/v1`, maxRetries: 0 });
    for (let i = 0; i < 3; i++) await sdk.chat.completions.create({ model: 'routed', messages });
    east.mode = 'fail';
    for (let i = 0; i < 2; i++) await sdk.chat.completions.create({ model: 'routed', messages });
    west.mode = 'fail';
    await expect(sdk.chat.completions.create({ model: 'routed', messages })).rejects.toThrow();
    // Usage is written in batches, and an event is recorded once its response has ended (which may be after
    // the client read it): the panel reads what has been written.
    const written = async () =>
      (
        await server.services.ctx.db
          .select({ id: usageEvents.id })
          .from(usageEvents)
          .where(eq(usageEvents.accountId, account.id))
      ).length;
    for (let i = 0; i < 100 && (await written()) < 6; i++) {
      await server.services.usage.flush();
      await new Promise((r) => setTimeout(r, 50));
    }
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await Promise.all([east, west].map((f) => f?.close()));
  });

  async function open(width: number, height: number): Promise<Page> {
    const context = await browser.newContext({
      baseURL: server.url,
      viewport: { width, height },
      deviceScaleFactor: 1,
      reducedMotion: 'reduce',
    });
    const page = await context.newPage();
    await signIn(page, email, password);
    return page;
  }

  for (const { name, width, height } of WIDTHS) {
    it(`lists each deployment's requests, errors, latency and spend, in Live mode too (${name})`, async () => {
      const page = await open(width, height);
      const errors: string[] = [];
      page.on('pageerror', (err) => errors.push(err.message));

      await page.getByRole('heading', { name: 'Deployments' }).waitFor();
      const table = page.getByRole('table', { name: 'Requests per deployment' });
      await table.waitFor();
      const header = await table.locator('thead th').allTextContents();
      expect(header.map((h) => h.trim())).toEqual([
        'Model',
        'Deployment',
        'Requests',
        'Errors',
        'Success',
        'p50',
        'p95',
        'Tokens',
        'Cost',
      ]);
      const cells = async () =>
        (await table.locator('tbody tr').all()).map((row) =>
          row
            .locator('th, td')
            .allTextContents()
            .then((t) => t.map((c) => c.trim())),
        );
      const rows = await Promise.all(await cells());
      // east answered 3 calls; west answered the 2 east failed, then failed the last one itself.
      expect(rows.map((r) => r.slice(0, 5))).toEqual([
        ['routed', 'east', '3', '0', '100%'],
        ['routed', 'west', '3', '1', '66.7%'],
      ]);
      for (const r of rows) {
        expect(r[5]).toMatch(/\d+(\.\d+)? m?s$/);
        expect(r[6]).toMatch(/\d+(\.\d+)? m?s$/);
      }
      expect(rows[0]?.[7]).toBe('36');
      expect(rows[0]?.[8]).toBe('$0.0450');
      expect(rows[1]?.[8]).toBe('$0.0300');
      await screenshot(page, `overview-deployments-${name}`);

      // The panel downloads as CSV, its cost by deployment in the catalogue's currency.
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page
          .locator('.section-head', { has: page.getByRole('heading', { name: 'Deployments' }) })
          .getByRole('button', { name: 'Download CSV' })
          .click(),
      ]);
      expect(download.suggestedFilename()).toBe('tessera-deployments-last_24h-all.csv');
      const lines = (await readFile((await download.path()) as string, 'utf8')).trim().split(/\r?\n/);
      expect(lines[0]).toBe(
        'model,deployment,requests,errors,success_rate,p50_latency_ms,p95_latency_ms,tokens,cost_USD',
      );
      expect(lines[1]).toMatch(/^routed,east,3,0,1,[\d.]+,[\d.]+,36,0\.045$/);
      expect(lines[2]).toMatch(/^routed,west,3,1,0\.66\d*,[\d.]+,[\d.]+,\d+,0\.03$/);

      // Live mode keeps both rows; Test mode has no model calls.
      await page.getByRole('button', { name: 'Live', exact: true }).click();
      await page.waitForURL((url) => url.searchParams.get('mode') === 'live');
      await page.locator('[aria-busy="false"]').first().waitFor();
      await expect(table.locator('tbody tr').count()).resolves.toBe(2);
      await page.getByRole('button', { name: 'Test', exact: true }).click();
      await page.getByRole('heading', { name: 'Make your first call' }).waitFor();

      expect(errors).toEqual([]);
      await page.context().close();
    });
  }
});
