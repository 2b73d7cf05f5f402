import { eq } from 'drizzle-orm';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accounts, users } from '../../src/db/schema';
import { DEMO_EMAIL, type DemoAccount } from '../../src/lifecycle';
import { createInvitation, signUpByInvitation } from '../../src/modules/teams';
import type { Services } from '../../src/services';
import { CHROMIUM, chromiumInstalled, screenshot } from './harness';
import {
  FORM_CONTROLS,
  horizontalOverflow,
  narrowSelects,
  resetSidewaysScroll,
  unreachable,
  unreachableScrollers,
} from './reach';
import { SIGNED_IN_PAGES, signIn, startTour, type Tour, WIDTHS } from './tour';

const hasChromium = chromiumInstalled();
if (!hasChromium) {
  console.warn(`Browser tests skipped: ${CHROMIUM} is missing. Install it with: apt-get install -y chromium`);
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

/** An organisation name longer than a phone's header, so that the header must wrap or shorten it. */
const LONG_NAME = 'Northwind Research and Development Laboratories International';
/** A second member, whose role the owner changes. */
const COLLEAGUE = 'a.colleague.with.a.long.address@research-laboratories.example.com';

/**
 * The demo organisation under a long name, with a second member: the header and the members' table then hold
 * what a real organisation's do.
 */
async function furnishDemo(services: Services): Promise<void> {
  const { db } = services.ctx;
  const [owner] = await db.select().from(users).where(eq(users.email, DEMO_EMAIL));
  const [account] = await db
    .update(accounts)
    .set({ name: LONG_NAME })
    .where(eq(accounts.email, DEMO_EMAIL))
    .returning();
  if (!owner || !account) throw new Error('no demo account');
  const invitation = await createInvitation({
    ctx: services.ctx,
    accountId: account.id,
    createdBy: owner,
    input: { role: 'developer', expiresInDays: 7 },
  });
  await signUpByInvitation({
    ctx: services.ctx,
    input: { email: COLLEAGUE, password: 'a colleague’s long password' },
    token: invitation.token,
  });
}

/** What a user of this width cannot reach or see on the page as it is now, under `stop`'s name. */
async function audit(page: Page, width: number, stop: string, into: Record<string, string[]>): Promise<void> {
  // A phone may scroll a wide table sideways inside its (focusable, named) region; a laptop must show it all,
  // and a form is never half off-screen, whatever the width.
  const phone = width < 760;
  await resetSidewaysScroll(page);
  into[stop] = [
    ...(await unreachableScrollers(page)),
    ...(await unreachable(page, { allowScrollRegions: phone })),
    ...(await unreachable(page, { selector: FORM_CONTROLS, allowScrollRegions: false })).map(
      (c) => `form: ${c}`,
    ),
    ...(await narrowSelects(page)),
    ...(await horizontalOverflow(page).then((px) => (px > 0 ? [`page ${px} px too wide`] : []))),
  ];
  await screenshot(page, `${phone ? 'phone' : 'desktop'}-${stop}`);
}

describe.skipIf(!hasChromium)('every page at 1440 px and 390 px in Chromium', () => {
  let server: Tour['server'];
  let browser: Browser;
  let demo: DemoAccount;
  let tour: Tour | undefined;

  beforeAll(async () => {
    tour = await startTour();
    ({ server, browser, demo } = tour);
    await furnishDemo(server.services);
  });
  afterAll(() => tour?.close());

  for (const { name, width, height } of WIDTHS) {
    it(`every page and form fits ${width} px: no sideways page scroll, every control on screen or in a focusable region (${name})`, async () => {
      const context = await browser.newContext({
        baseURL: server.url,
        viewport: { width, height },
        deviceScaleFactor: 1,
        reducedMotion: 'reduce',
      });
      const page = await context.newPage();
      const found: Record<string, string[]> = {};

      await page.goto('/signin');
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await audit(page, width, 'sign-in', found);

      await signIn(page, demo.email, demo.password);
      for (const stop of SIGNED_IN_PAGES) {
        await page.goto(stop.path);
        await stop.ready(page);
        await audit(page, width, stop.name, found);
      }

      // The header names the organisation in full where it fits, else shortened with the full name on hover.
      const orgName = page.getByTitle(LONG_NAME, { exact: true });
      found['header-name'] =
        (await orgName.count()) === 1 && (await orgName.textContent()) === LONG_NAME
          ? await unreachable(page, { selector: 'header *', allowScrollRegions: false })
          : ['the organisation is not named in full in the header, or has no title'];

      // The keys' forms: create, edit, rotate, revoke, each open in turn.
      await page.goto('/keys');
      await page.getByLabel('Name').fill(`${name} key`);
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.getByTestId('new-key').waitFor();
      await audit(page, width, 'key-created', found);
      await page.getByRole('button', { name: 'I have saved it' }).click();
      const key = 'Demo test key';
      await page.getByRole('button', { name: `Edit ${key}` }).click();
      const form = page.getByRole('form', { name: `Settings of ${key}` });
      await form.getByLabel('tessera-fast-4k').waitFor();
      await audit(page, width, 'key-edit', found);
      await form.getByRole('button', { name: 'Cancel' }).click();
      await page.getByRole('button', { name: `Rotate ${key}` }).click();
      await page.getByLabel('Old key keeps working for').waitFor();
      await audit(page, width, 'key-rotate', found);
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.getByRole('button', { name: `Revoke ${key}` }).click();
      await page.getByRole('button', { name: 'Yes, revoke' }).waitFor();
      await audit(page, width, 'key-revoke', found);
      await page.getByRole('button', { name: 'Cancel' }).click();
      // The key's actions are on screen, not only reachable by scrolling the table.
      await resetSidewaysScroll(page);
      found['key-actions'] = await unreachable(page, {
        selector: 'table button',
        allowScrollRegions: false,
      });

      // Members: a role changed, a removal begun, an invitation link made.
      await page.goto('/members');
      const role = page.getByLabel(`Role of ${COLLEAGUE}`);
      await role.selectOption(width < 760 ? 'viewer' : 'admin');
      await page.getByText(`${COLLEAGUE} is now`).waitFor({ state: 'attached' });
      await audit(page, width, 'member-role', found);
      await page.getByRole('button', { name: `Remove ${COLLEAGUE}` }).click();
      await page.getByRole('button', { name: 'Yes, remove' }).waitFor();
      await audit(page, width, 'member-remove', found);
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.getByRole('button', { name: 'Create invitation link' }).click();
      await page.getByTestId('invitation-link').waitFor();
      await audit(page, width, 'invite', found);

      // What the tables are for stays in view: an error's key, an audit event's details.
      await page.goto('/');
      await SIGNED_IN_PAGES[0]?.ready(page);
      await resetSidewaysScroll(page);
      found['errors-key'] = await unreachable(page, {
        selector: 'td[data-label="Key"]',
        allowScrollRegions: false,
      });
      expect(await page.locator('td[data-label="Key"]').count()).toBeGreaterThan(0);
      await page.goto('/audit');
      await SIGNED_IN_PAGES.find((p) => p.name === 'audit')?.ready(page);
      await resetSidewaysScroll(page);
      found['audit-details'] = await unreachable(page, {
        selector: 'td[data-label="Details"]',
        allowScrollRegions: false,
      });
      expect(await page.locator('td[data-label="Details"]').count()).toBeGreaterThan(0);

      // The charts' legend keys stay the size of a line of text (they are SVGs, like the charts themselves).
      await page.goto('/');
      await SIGNED_IN_PAGES[0]?.ready(page);
      const swatches = await page.locator('.legend svg').all();
      expect(swatches.length).toBeGreaterThanOrEqual(6);
      for (const swatch of swatches) expect((await swatch.boundingBox())?.height).toBeLessThanOrEqual(20);

      expect(found).toEqual(Object.fromEntries(Object.keys(found).map((k) => [k, []])));
      await context.close();
    });
  }

  it('at 390 px every navigation link is on screen, and a wide table of numbers scrolls by keyboard', async () => {
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

    // Requests per endpoint (five columns of numbers) is wider than a phone: Tab reaches its region, and the arrow
    // keys scroll it. (Tables of records, such as the recent errors, are cards on a phone instead.)
    const measure = (js: string) =>
      page.evaluate<number>(
        `(() => { const el = document.querySelector('section[aria-label="Requests per endpoint"]'); return ${js}; })()`,
      );
    expect(await measure('el.scrollWidth - el.clientWidth')).toBeGreaterThan(0);
    // The region is the next stop after the endpoints' "Download CSV" button.
    await page.getByRole('button', { name: 'Download CSV' }).first().focus();
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
