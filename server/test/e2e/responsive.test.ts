import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoAccount } from '../../src/lifecycle';
import type { RunningServer } from '../../src/server';
import { CHROMIUM, chromiumInstalled, screenshot } from './harness';
import { SIGNED_IN_PAGES, signIn, startTour, type Tour, WIDTHS } from './tour';

const hasChromium = chromiumInstalled();
if (!hasChromium) {
  console.warn(`Browser tests skipped: ${CHROMIUM} is missing. Install it with: apt-get install -y chromium`);
}

/** How far the page scrolls sideways: 0 when everything fits the viewport. */
function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate<number>('document.scrollingElement.scrollWidth - window.innerWidth');
}

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

async function box(page: Page, selector: string): Promise<Box> {
  const found = await page.locator(selector).first().boundingBox();
  if (!found) throw new Error(`${selector} is not rendered`);
  return found;
}

/** Every element that scrolls sideways must be reachable by keyboard: focusable and named as a region. */
function unreachableScrollers(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`(() => {
    const out = [];
    for (const el of document.querySelectorAll('main *')) {
      if (el.closest('.graphiql-container')) continue; // CodeMirror scrolls with its own focused input
      const s = getComputedStyle(el);
      if (!(s.overflowX === 'auto' || s.overflowX === 'scroll') || el.scrollWidth <= el.clientWidth) continue;
      const named = el.getAttribute('aria-label') && (el.tagName === 'SECTION' || el.getAttribute('role') === 'region');
      if (el.tabIndex !== 0 || !named) out.push(el.outerHTML.slice(0, 120));
    }
    return out;
  })()`);
}

describe.skipIf(!hasChromium)('every page at 1440 px and 390 px in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let demo: DemoAccount;
  let tour: Tour | undefined;

  beforeAll(async () => {
    tour = await startTour();
    ({ server, browser, demo } = tour);
  });
  afterAll(() => tour?.close());

  for (const { name, width, height } of WIDTHS) {
    it(`fits ${width} px without sideways page scroll; tables and code scroll in focusable regions (${name})`, async () => {
      const context = await browser.newContext({
        baseURL: server.url,
        viewport: { width, height },
        deviceScaleFactor: 1,
        reducedMotion: 'reduce',
      });
      const page = await context.newPage();
      const overflow: Record<string, number> = {};
      const unreachable: Record<string, string[]> = {};

      await page.goto('/signin');
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      overflow['sign-in'] = await horizontalOverflow(page);
      await screenshot(page, `${name}-sign-in`);

      await signIn(page, demo.email, demo.password);
      for (const stop of SIGNED_IN_PAGES) {
        await page.goto(stop.path);
        await stop.ready(page);
        overflow[stop.name] = await horizontalOverflow(page);
        unreachable[stop.name] = await unreachableScrollers(page);
        await screenshot(page, `${name}-${stop.name}`);
      }
      await page.goto('/keys');
      await page.getByLabel('Name').fill(`${name} key`);
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.getByTestId('new-key').waitFor();
      overflow['key-created'] = await horizontalOverflow(page);
      await screenshot(page, `${name}-key-created`);

      // The charts' legend keys stay the size of a line of text (they are SVGs, like the charts themselves).
      await page.goto('/');
      await SIGNED_IN_PAGES[0]?.ready(page);
      const swatches = await page.locator('.legend svg').all();
      expect(swatches.length).toBeGreaterThanOrEqual(6);
      for (const swatch of swatches) expect((await swatch.boundingBox())?.height).toBeLessThanOrEqual(20);

      expect(overflow).toEqual(Object.fromEntries(Object.keys(overflow).map((k) => [k, 0])));
      expect(unreachable).toEqual(Object.fromEntries(Object.keys(unreachable).map((k) => [k, []])));
      await context.close();
    });
  }

  it('at 390 px every navigation link is on screen, and the wide tables scroll by keyboard', async () => {
    const context = await browser.newContext({ baseURL: server.url, viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await signIn(page, demo.email, demo.password);
    await page.getByRole('table', { name: 'Recent errors' }).waitFor();

    const nav = page.getByRole('navigation', { name: 'Dashboard' });
    for (const link of await nav.getByRole('link').all()) {
      const b = await link.boundingBox();
      expect(b, (await link.textContent()) ?? '').not.toBeNull();
      expect(b?.x).toBeGreaterThanOrEqual(0);
      expect((b?.x ?? 0) + (b?.width ?? 0)).toBeLessThanOrEqual(390);
    }

    // The recent errors are wider than a phone: Tab reaches their region, and the arrow keys scroll it.
    const measure = (js: string) =>
      page.evaluate<number>(
        `(() => { const el = document.querySelector('section[aria-label="Recent errors"]'); return ${js}; })()`,
      );
    expect(await measure('el.scrollWidth - el.clientWidth')).toBeGreaterThan(0);
    // The region is the next stop after the errors' "Download CSV" button.
    await page.getByRole('button', { name: 'Download CSV' }).last().focus();
    await page.keyboard.press('Tab');
    expect(await measure('Number(document.activeElement === el)')).toBe(1);
    for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowRight');
    // Smooth scrolling can take a while on a loaded machine: poll for longer than the default second.
    await expect.poll(() => measure('el.scrollLeft'), { timeout: 10_000 }).toBeGreaterThan(0);
    await context.close();
  });

  it('at 390 px the GraphQL explorer stacks the editor above the result, both of a usable height', async () => {
    const context = await browser.newContext({ baseURL: server.url, viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await signIn(page, demo.email, demo.password);
    await page.goto('/explorer');
    await SIGNED_IN_PAGES.find((p) => p.name === 'explorer')?.ready(page);

    const editor = await box(page, '.graphiql-query-editor .CodeMirror');
    const result = await box(page, '.graphiql-response .result-window');
    expect(editor.height).toBeGreaterThanOrEqual(240);
    expect(result.height).toBeGreaterThanOrEqual(240);
    expect(result.width).toBeGreaterThanOrEqual(280);
    expect(result.y).toBeGreaterThanOrEqual(editor.y + editor.height);

    // Run the query: the answer shows in the result pane.
    await page.getByRole('button', { name: /Execute query/ }).click();
    await page.locator('.graphiql-response .CodeMirror-code', { hasText: '"viewer"' }).waitFor();
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await screenshot(page, 'phone-explorer-result');
    await context.close();
  });
});
