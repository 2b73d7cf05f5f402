import { readFile } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server';
import { CHROMIUM, chromiumInstalled, openDashboard, screenshot } from './harness';

const hasChromium = chromiumInstalled();
if (!hasChromium) console.warn(`Browser tests skipped: ${CHROMIUM} is missing.`);

describe.skipIf(!hasChromium)('the audit log in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let close: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    ({ server, browser, close } = await openDashboard());
  }, 180_000);
  afterAll(() => close?.());

  it('creates and revokes a key, sees both events, filters them, downloads the log as CSV and JSON lines', async () => {
    const context = await browser.newContext({
      baseURL: server.url,
      viewport: { width: 1360, height: 900 },
      deviceScaleFactor: 1,
      reducedMotion: 'reduce',
      acceptDownloads: true,
    });
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (err) => pageErrors.push(err.message));

    await page.goto('/signup');
    await page.getByLabel('Email').fill('audit-e2e@example.com');
    await page.getByLabel('Password').fill('a long enough password');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();

    await page.getByRole('navigation').getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Name').fill('audited');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByTestId('new-key').textContent()) ?? '';
    expect(key).toMatch(/^sk_test_/);
    await page.getByRole('button', { name: 'I have saved it' }).click();
    await page.getByRole('button', { name: 'Revoke audited' }).click();
    await page.getByRole('button', { name: 'Yes, revoke' }).click();
    await page.getByText(/^Revoked ./).waitFor();

    await page.getByRole('navigation').getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    const table = page.getByRole('region', { name: 'Audit events' });
    await table.getByRole('row', { name: /Key revoked/ }).waitFor();
    const rows = async () => (await table.getByRole('row').allTextContents()).slice(1);
    const all = await rows();
    expect(all.map((r) => r.match(/Key revoked|Key created|Account created/)?.[0])).toEqual([
      'Key revoked',
      'Key created',
      'Account created',
    ]);
    expect(all[0]).toContain('audit-e2e@example.com');
    expect(all[1]).toContain('“audited”');
    await screenshot(page, 'audit-log');

    await page.getByLabel('Action').selectOption({ label: 'Key revoked' });
    await expect.poll(async () => (await rows()).length, { timeout: 10_000 }).toBe(1);
    const filtered = await rows();
    expect(filtered).toHaveLength(1);
    expect(filtered[0]).toContain('Key revoked');
    expect(page.url()).toContain('action=key.revoked');
    await page.getByLabel('Action').selectOption({ label: 'All actions' });
    await table.getByRole('row', { name: /Account created/ }).waitFor();

    const [csvDownload] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download CSV' }).click(),
    ]);
    expect(csvDownload.suggestedFilename()).toMatch(/^tessera-audit-.*\.csv$/);
    const csv = await readFile((await csvDownload.path()) as string, 'utf8');
    const lines = csv.trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'created_at,id,action,actor_kind,actor_user_id,actor_email,target_type,target_id,ip,user_agent,details',
    );
    expect(lines.slice(1).map((l) => l.split(',')[2])).toEqual([
      'key.revoked',
      'key.created',
      'account.created',
    ]);
    expect(csv).not.toContain(key);

    const [jsonlDownload] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download JSON lines' }).click(),
    ]);
    const jsonl = await readFile((await jsonlDownload.path()) as string, 'utf8');
    const events = jsonl
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { action: string; actor: { email: string } });
    expect(events.map((e) => e.action)).toEqual(['key.revoked', 'key.created', 'account.created']);
    expect(events[0]?.actor.email).toBe('audit-e2e@example.com');
    expect(jsonl).not.toContain(key);
    expect(pageErrors).toEqual([]);
    await context.close();
  }, 120_000);
});
