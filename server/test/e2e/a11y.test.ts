import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoAccount } from '../../src/lifecycle';
import type { RunningServer } from '../../src/server';
import { CHROMIUM, chromiumInstalled } from './harness';
import { axeViolations, SIGNED_IN_PAGES, signIn, startTour, type Tour, WIDTHS } from './tour';

const hasChromium = chromiumInstalled();
if (!hasChromium) {
  console.warn(`Browser tests skipped: ${CHROMIUM} is missing. Install it with: apt-get install -y chromium`);
}

/** The name of the element that has focus, and its role, as a screen reader would hear it. */
function focused(page: Page): Promise<{ tag: string; text: string; label: string | null }> {
  return page.evaluate(
    `(() => { const el = document.activeElement;
      return { tag: el.tagName, text: (el.textContent || '').trim(), label: el.getAttribute('aria-label') }; })()`,
  );
}

/**
 * Whether the focused element's outline (width plus offset) is drawn in full: no ancestor that clips its
 * overflow cuts it.
 */
function focusRingClipped(page: Page): Promise<string | null> {
  return page.evaluate(`(() => {
    const el = document.activeElement;
    const style = getComputedStyle(el);
    if (style.outlineStyle === 'none') return 'no outline';
    const reach = Math.max(0, parseFloat(style.outlineWidth) + parseFloat(style.outlineOffset));
    const r = el.getBoundingClientRect();
    for (let a = el.parentElement; a; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
      const b = a.getBoundingClientRect();
      if (r.left - reach < b.left || r.right + reach > b.right || r.top - reach < b.top || r.bottom + reach > b.bottom)
        return a.className || a.tagName;
    }
    return null;
  })()`);
}

describe.skipIf(!hasChromium)('accessibility (axe, WCAG 2.1 AA) and keyboard paths in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let demo: DemoAccount;
  let tour: Tour | undefined;
  const pageErrors = new WeakMap<Page, string[]>();

  beforeAll(async () => {
    tour = await startTour();
    ({ server, browser, demo } = tour);
  });
  afterAll(() => tour?.close());

  async function openPage(width: number, height: number): Promise<Page> {
    const context = await browser.newContext({
      baseURL: server.url,
      viewport: { width, height },
      deviceScaleFactor: 1,
      reducedMotion: 'reduce',
    });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    pageErrors.set(page, errors);
    return page;
  }

  /** Closes the page's context, after checking that the page threw nothing. */
  async function close(page: Page): Promise<void> {
    expect(pageErrors.get(page)).toEqual([]);
    await page.context().close();
  }

  for (const { name, width, height } of WIDTHS) {
    it(`every page passes axe at ${width} px (${name})`, async () => {
      const page = await openPage(width, height);
      const found: Record<string, string[]> = {};

      await page.goto('/signin');
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      found['sign-in'] = await axeViolations(page);
      await page.getByRole('link', { name: 'Create an account' }).click();
      await page.getByRole('heading', { name: 'Create your account' }).waitFor();
      // With the form's errors showing: they are tied to their fields.
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.getByText('Enter a valid email address').waitFor();
      found['sign-up-errors'] = await axeViolations(page);

      await signIn(page, demo.email, demo.password);
      for (const stop of SIGNED_IN_PAGES) {
        await page.goto(stop.path);
        await stop.ready(page);
        found[stop.name] = await axeViolations(page);
      }
      // The explorer again with a result in its response pane (JSON strings, numbers and keys have their own colours).
      await page.getByRole('button', { name: /Execute query/ }).click();
      await page.locator('.graphiql-response .CodeMirror-code', { hasText: '"viewer"' }).waitFor();
      found['explorer-result'] = await axeViolations(page);

      await page.goto('/keys');
      await page.getByLabel('Name').fill(`axe ${name}`);
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.getByTestId('new-key').waitFor();
      found['key-created'] = await axeViolations(page);
      await page.getByRole('button', { name: 'I have saved it' }).click();
      await page.getByRole('button', { name: `Revoke axe ${name}` }).click();
      found['revoke-confirmation'] = await axeViolations(page);

      expect(found).toEqual(Object.fromEntries(Object.keys(found).map((k) => [k, []])));
      await close(page);
    });
  }

  it('keyboard: focus never falls to the page body on the keys page, Escape cancels, outcomes are announced', async () => {
    const page = await openPage(1440, 900);
    await signIn(page, demo.email, demo.password);
    await page.goto('/keys');
    await page.getByRole('table', { name: 'API keys' }).waitFor();
    const status = page.locator('p[role="status"]');

    // Create a key from the keyboard: the reveal takes focus and the outcome is announced.
    await page.getByLabel('Name').fill('keyboard key');
    await page.keyboard.press('Enter');
    await page.getByTestId('new-key').waitFor();
    expect(await status.textContent()).toBe(
      'Key “keyboard key” created. Copy it now: it will not be shown again.',
    );
    expect((await focused(page)).tag).toBe('SECTION');
    // Escape does not throw away a secret shown only once.
    await page.keyboard.press('Escape');
    expect(await page.getByTestId('new-key').count()).toBe(1);

    // "I have saved it" continues at the list of keys.
    await page.getByRole('button', { name: 'I have saved it' }).focus();
    await page.keyboard.press('Enter');
    expect(await focused(page)).toMatchObject({ tag: 'H2', text: 'Your keys' });
    expect(await status.textContent()).toMatch(/^Key “keyboard key” is listed below as sk_test_…/);

    // Revoke opens a confirmation with focus on its harmless choice; Escape and Cancel return to Revoke.
    const revoke = page.getByRole('button', { name: 'Revoke keyboard key' });
    await revoke.focus();
    await page.keyboard.press('Enter');
    expect(await focused(page)).toMatchObject({ tag: 'BUTTON', text: 'Cancel' });
    await page.keyboard.press('Escape');
    expect(await page.getByRole('button', { name: 'Yes, revoke' }).count()).toBe(0);
    expect(await focused(page)).toMatchObject({ tag: 'BUTTON', label: 'Revoke keyboard key' });
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter'); // on Cancel
    expect(await focused(page)).toMatchObject({ tag: 'BUTTON', label: 'Revoke keyboard key' });

    // Revoking lands on the row's new state and is announced.
    await page.keyboard.press('Enter');
    await page.keyboard.press('Shift+Tab');
    expect(await focused(page)).toMatchObject({ tag: 'BUTTON', text: 'Yes, revoke' });
    await page.keyboard.press('Enter');
    const row = page.getByRole('row', { name: /keyboard key/ });
    await row.getByText(/^Revoked ./).waitFor();
    await expect.poll(async () => (await focused(page)).text).toMatch(/^Revoked/);
    expect(await row.locator(':focus').count()).toBe(1);
    expect(await status.textContent()).toBe('Key “keyboard key” revoked. Calls with it are now refused.');
    await close(page);
  });

  it('keyboard: the period and mode toggles and the code samples show their whole focus ring', async () => {
    const page = await openPage(1440, 900);
    await signIn(page, demo.email, demo.password);
    await page.getByRole('table', { name: 'Requests per endpoint' }).waitFor();
    const clipped: Record<string, string | null> = {};
    // Reached with the keyboard, so that :focus-visible applies.
    await page.getByRole('button', { name: '24 h' }).focus();
    for (const [key, name] of [
      ['Shift+Tab', '1 h'],
      ['Tab', '24 h'],
      ['Tab', '7 d'],
      ['Tab', '30 d'],
      ['Tab', 'All'],
    ] as const) {
      await page.keyboard.press(key);
      expect((await focused(page)).text).toBe(name);
      clipped[name] = await focusRingClipped(page);
    }
    // The code samples' scroll regions sit in a rounded figure that clips its overflow.
    await page.goto('/keys');
    for (const name of ['curl', 'Node.js with the openai SDK']) {
      await page.getByRole('figure').filter({ hasText: name }).getByRole('button', { name: 'Copy' }).focus();
      await page.keyboard.press('Tab');
      expect((await focused(page)).label).toBe(`${name} example`);
      clipped[name] = await focusRingClipped(page);
    }
    expect(clipped).toEqual({
      '1 h': null,
      '24 h': null,
      '7 d': null,
      '30 d': null,
      All: null,
      curl: null,
      'Node.js with the openai SDK': null,
    });
    await close(page);
  });
});
