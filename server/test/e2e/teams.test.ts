import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server';
import { CHROMIUM, chromiumInstalled, newContext, openDashboard, screenshot } from './harness';

const hasChromium = chromiumInstalled();
if (!hasChromium) console.warn(`Browser tests skipped: ${CHROMIUM} is missing.`);

describe.skipIf(!hasChromium)('teams in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let close: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    ({ server, browser, close } = await openDashboard());
  }, 180_000);
  afterAll(() => close?.());

  it("the owner invites a developer, who signs up through the link and sees a developer's dashboard; the owner removes them", async () => {
    const pageErrors: string[] = [];
    const owner = await (await newContext(browser, server.url)).newPage();
    owner.on('pageerror', (err) => pageErrors.push(err.message));
    await owner.goto('/signup');
    await owner.getByLabel('Email').fill('owner@example.com');
    await owner.getByLabel('Password').fill('a long enough password');
    await owner.getByRole('button', { name: 'Create account' }).click();
    await owner.getByRole('heading', { name: 'Overview' }).waitFor();

    // A live key of the owner's: the developer will see it but not be offered to change it.
    await owner.getByRole('navigation').getByRole('link', { name: 'API keys' }).click();
    await owner.getByLabel('Name').fill('owner live');
    await owner.getByLabel(/^Live/).check();
    await owner.getByRole('button', { name: 'Create key' }).click();
    await owner.getByRole('button', { name: 'I have saved it' }).click();

    await owner.getByRole('navigation').getByRole('link', { name: 'Members' }).click();
    await owner.getByRole('heading', { name: 'Members' }).waitFor();
    await owner.getByLabel('Role', { exact: true }).selectOption('developer');
    await owner.getByRole('button', { name: 'Create invitation link' }).click();
    const link = (await owner.getByTestId('invitation-link').textContent()) ?? '';
    expect(link).toMatch(new RegExp(`^${server.url}/invite/[A-Za-z0-9_-]{40,}$`));
    await owner.getByRole('button', { name: 'Copy link' }).click();
    expect(await owner.evaluate<string>('navigator.clipboard.readText()')).toBe(link);
    await owner.getByRole('list', { name: 'Pending invitations' }).getByText('developer').waitFor();
    await screenshot(owner, 'teams-members-invite');

    // A second browser context: the invitee, signed out.
    const guest = await (await newContext(browser, server.url)).newPage();
    guest.on('pageerror', (err) => pageErrors.push(err.message));
    await guest.goto(link.replace(server.url, ''));
    const summary = guest.getByTestId('invitation-summary');
    await summary.waitFor();
    expect(await summary.textContent()).toMatch(/owner@example\.com invites you to join .* as developer/);
    await guest.getByLabel('Email').fill('dev@example.com');
    await guest.getByLabel('Password').fill('another long password');
    await guest.getByRole('button', { name: 'Create account' }).click();
    await guest.getByRole('heading', { name: 'Overview' }).waitFor();

    // The developer's limited dashboard: no Members page, the role shown, the owner's live key read-only.
    const nav = guest.getByRole('navigation', { name: 'Dashboard' });
    expect(await nav.getByRole('link', { name: 'Members' }).count()).toBe(0);
    const topbar = (await guest.locator('.topbar').textContent()) ?? '';
    expect(topbar).toContain('developer');
    expect(topbar).toContain('dev@example.com');
    await nav.getByRole('link', { name: 'API keys' }).click();
    const ownersKey = guest.getByRole('row', { name: /owner live/ });
    await ownersKey.waitFor();
    expect(await ownersKey.textContent()).toContain('Needs the admin role');
    expect(await ownersKey.getByRole('button', { name: /Revoke/ }).count()).toBe(0);
    // They may create keys, and change their own.
    await guest.getByLabel('Name').fill('dev test');
    await guest.getByRole('button', { name: 'Create key' }).click();
    await guest.getByRole('button', { name: 'I have saved it' }).click();
    const ownKey = guest.getByRole('row', { name: /dev test/ });
    await ownKey.getByRole('button', { name: 'Revoke dev test' }).waitFor();
    await screenshot(guest, 'teams-developer-keys');

    // The owner sees the member and removes them (their key is revoked).
    await owner.reload();
    const row = owner.getByRole('row', { name: /dev@example\.com/ });
    await row.waitFor();
    expect(await row.getByLabel('Role of dev@example.com').inputValue()).toBe('developer');
    await row.getByRole('button', { name: 'Remove dev@example.com' }).click();
    await row.getByRole('button', { name: 'Yes, remove' }).click();
    await owner.getByRole('row', { name: /dev@example\.com/ }).waitFor({ state: 'detached' });

    // The removed member's next call is refused: the dashboard says they are in no organisation.
    await guest.reload();
    await guest.getByRole('heading', { name: 'No organisation' }).waitFor();
    await screenshot(guest, 'teams-removed-member');
    expect(pageErrors).toEqual([]);
  }, 120_000);
});
