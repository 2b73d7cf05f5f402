import OpenAI from 'openai';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server';
import { CHROMIUM, chromiumInstalled, newContext, openDashboard, screenshot } from './harness';

const hasChromium = chromiumInstalled();
if (!hasChromium) console.warn(`Browser tests skipped: ${CHROMIUM} is missing.`);

describe.skipIf(!hasChromium)('editing a key’s settings in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let close: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    ({ server, browser, close } = await openDashboard());
  }, 180_000);
  afterAll(() => close?.());

  it('limits a key to the model catalogue and a rate, sees the server refuse too much, lifts the limit, rotates it', async () => {
    const context = await newContext(browser, server.url);
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (err) => pageErrors.push(err.message));

    await page.goto('/signup');
    await page.getByLabel('Email').fill('keys-edit@example.com');
    await page.getByLabel('Password').fill('a long enough password');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.getByRole('navigation').getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Name').fill('svc');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByTestId('new-key').textContent()) ?? '';
    await page.getByRole('button', { name: 'I have saved it' }).click();
    const row = page.getByRole('row', { name: /svc/ });
    await row.waitFor();
    expect(await row.textContent()).toContain('All endpoints · every model');

    const client = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const hello = { model: 'tessera-fast-4k', messages: [{ role: 'user' as const, content: 'hi' }] };
    expect((await client.chat.completions.create(hello)).choices.length).toBe(1);

    // Limit it to the model catalogue, at 30 requests a minute.
    await page.getByRole('button', { name: 'Edit svc' }).click();
    const form = page.getByRole('form', { name: 'Settings of svc' });
    await form.getByLabel('Model catalogue').check();
    await form.getByLabel(/Requests per minute/).fill('30');
    await screenshot(page, 'keys-edit-01-form');
    await form.getByRole('button', { name: 'Save settings' }).click();
    await form.waitFor({ state: 'detached' });
    await page.getByText('Settings of “svc” saved.').waitFor({ state: 'attached' });
    expect(await row.textContent()).toContain('Model catalogue · every model · 30 requests/min');
    // Focus returns to the row's Edit button.
    expect(await page.evaluate<string>('document.activeElement?.getAttribute("aria-label") ?? ""')).toBe(
      'Edit svc',
    );
    await screenshot(page, 'keys-edit-02-saved');

    // The key now may list models but not chat, at once (this instance applied the edit to its cache).
    expect((await client.models.list()).data.length).toBeGreaterThan(0);
    await expect(client.chat.completions.create(hello)).rejects.toMatchObject({
      status: 403,
      code: 'permission_denied',
    });

    // More than the Free plan's 100 requests a minute: the server's message shows beside the field.
    await page.getByRole('button', { name: 'Edit svc' }).click();
    await form.getByLabel(/Requests per minute/).fill('500');
    await form.getByRole('button', { name: 'Save settings' }).click();
    await form.getByText("requestsPerMinute must be within the plan's limit of 100").waitFor();
    expect(await form.getByLabel(/Requests per minute/).getAttribute('aria-invalid')).toBe('true');
    await screenshot(page, 'keys-edit-03-error');

    // Lift both limits.
    await form.getByLabel('Model catalogue').uncheck();
    await form.getByLabel(/Requests per minute/).fill('');
    await form.getByRole('button', { name: 'Save settings' }).click();
    await form.waitFor({ state: 'detached' });
    await page.getByRole('row', { name: /All endpoints · every model/ }).waitFor();
    expect((await client.chat.completions.create(hello)).choices.length).toBe(1);

    // Rotate it: the replacement is shown once, the old key keeps working for the hour picked, both are listed.
    await page.getByRole('button', { name: 'Rotate svc' }).click();
    await page.getByLabel('Old key keeps working for').selectOption({ label: '1 hour' });
    await page.getByRole('button', { name: 'Create replacement' }).click();
    const replacement = (await page.getByTestId('new-key').textContent()) ?? '';
    expect(replacement).toMatch(/^sk_test_/);
    expect(replacement).not.toBe(key);
    await page.getByRole('button', { name: 'I have saved it' }).click();
    const rows = page.getByRole('row', { name: /svc/ });
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.nth(0).textContent()).toContain('Active');
    expect(await rows.nth(1).textContent()).toMatch(/Rotating: works until/);
    expect(await rows.nth(1).getByRole('button', { name: 'Rotate svc' }).count()).toBe(0);
    await screenshot(page, 'keys-edit-04-rotated');
    expect((await client.models.list()).data.length).toBeGreaterThan(0);
    const next = new OpenAI({ apiKey: replacement, baseURL: `${server.url}/v1`, maxRetries: 0 });
    expect((await next.chat.completions.create(hello)).choices.length).toBe(1);

    expect(pageErrors).toEqual([]);
    await context.close();
  }, 120_000);
});
