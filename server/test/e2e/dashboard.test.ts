import OpenAI from 'openai';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server';
import { CHROMIUM, chromiumInstalled, newContext, openDashboard, screenshot } from './harness';

const hasChromium = chromiumInstalled();
if (!hasChromium) {
  console.warn(`Browser tests skipped: ${CHROMIUM} is missing. Install it with: apt-get install -y chromium`);
}

describe.skipIf(!hasChromium)('dashboard in a real Chromium against the real server', () => {
  let server: RunningServer;
  let browser: Browser;
  let close: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    ({ server, browser, close } = await openDashboard());
  });
  afterAll(() => close?.());

  it('sign up, create and copy a test key, call the API with it, revoke it, and the next call is refused', async () => {
    const context = await newContext(browser, server.url);
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (err) => pageErrors.push(err.message));

    // Signed out, any page shows sign-in; the form checks the shared schema before sending.
    await page.goto('/keys');
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByRole('heading', { name: 'Create your account' }).waitFor();
    await page.getByLabel('Email').fill('not-an-email');
    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByText('Enter a valid email address').waitFor();
    await page.getByText('Password must be at least 10 characters').waitFor();
    await screenshot(page, '01-sign-up-errors');

    await page.getByLabel('Email').fill('e2e@example.com');
    await page.getByLabel('Password').fill('a long enough password');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await screenshot(page, '02-overview-new-account');

    // Create a test key: shown once, copied to the clipboard.
    await page.getByRole('navigation').getByRole('link', { name: 'API keys' }).click();
    await page.getByText('No keys yet').waitFor();
    await page.getByLabel('Name').fill('e2e backend');
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = (await page.getByTestId('new-key').textContent()) ?? '';
    expect(shown).toMatch(/^sk_test_[A-Za-z0-9]{20,}$/);
    await page.getByRole('button', { name: 'Copy key' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    // A string, so the server's tsconfig (no DOM lib) need not know the page's globals.
    const key = await page.evaluate<string>('navigator.clipboard.readText()');
    expect(key).toBe(shown);
    await screenshot(page, '03-key-created');
    await page.getByRole('button', { name: 'I have saved it' }).click();
    const row = page.getByRole('row', { name: /e2e backend/ });
    await row.waitFor();
    expect(await row.textContent()).toContain(`sk_test_…${key.slice(-4)}`);
    expect(await page.content()).not.toContain(key);

    // The copied key works from a backend with the openai SDK.
    const client = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toContain('tessera-fast-4k');
    const completion = await client.chat.completions.create({
      model: 'tessera-fast-4k',
      messages: [{ role: 'user', content: 'Hello from the browser test' }],
    });
    expect(completion.choices[0]?.message.content?.length).toBeGreaterThan(0);
    // A bad call, for the recent errors.
    await expect(
      client.chat.completions.create({ model: 'no-such-model', messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toMatchObject({ status: 404 });

    // The playground streams a reply through the session (test mode, no key in the page)...
    await page.getByRole('navigation').getByRole('link', { name: 'Playground' }).click();
    await page.getByLabel('Message').fill('Say something');
    await page.getByRole('button', { name: 'Send' }).click();
    // "Clear" appears once the stream has ended.
    await page.getByRole('button', { name: 'Clear' }).waitFor();
    expect((await page.getByTestId('assistant-reply').textContent())?.length).toBeGreaterThan(0);
    expect(await page.getByRole('alert').count()).toBe(0);
    await screenshot(page, '04-playground');
    // ...and runs the code analysis with the pasted key.
    await page.getByLabel('An API key you paste').check();
    await page.getByLabel('API key', { exact: true }).fill(key);
    await page.getByRole('tab', { name: 'Code analysis' }).click();
    await page.getByRole('button', { name: 'Analyse' }).click();
    const findings = page.getByRole('table', { name: 'Findings' });
    await findings.waitFor();
    expect(await findings.textContent()).toContain('security/weak-hash');
    await screenshot(page, '04-playground-analysis');

    // The overview shows the calls: the per-endpoint rows and the failed call in recent errors.
    await page.getByRole('navigation').getByRole('link', { name: 'Overview' }).click();
    const endpoints = page.getByRole('table', { name: 'Requests per endpoint' });
    const chatRow = endpoints.getByRole('row', { name: /POST \/v1\/chat\/completions/ });
    const total = page.getByRole('article', { name: 'Total requests' });
    const totalShown = async () => Number((await total.locator('.stat-value').textContent()) ?? '0');
    // Usage is written in batches about every second: reload until all five calls are there.
    for (let i = 0; i < 40 && !((await chatRow.isVisible()) && (await totalShown()) >= 5); i++) {
      await page.waitForTimeout(500);
      await page.reload();
      await page.getByRole('heading', { name: 'Overview' }).waitFor();
      // The loading states, not the recent errors' export status, which stays on the page.
      await page
        .getByRole('status')
        .filter({ hasText: /^Loading/ })
        .first()
        .waitFor({ state: 'detached' });
    }
    expect(await chatRow.textContent()).toMatch(/POST\s*\/v1\/chat\/completions/);
    await endpoints.getByRole('row', { name: /GET \/v1\/models/ }).waitFor();
    expect(await totalShown()).toBe(5);
    await endpoints.getByRole('row', { name: /POST \/api\/code\/analyze/ }).waitFor();
    await endpoints.getByRole('row', { name: /POST \/api\/playground\/chat\/completions/ }).waitFor();
    const errorRow = page.getByRole('table', { name: 'Recent errors' }).getByRole('row', { name: /404/ });
    await errorRow.waitFor();
    expect(await errorRow.textContent()).toContain('no-such-model');
    expect(await errorRow.textContent()).toContain(`sk_test_…${key.slice(-4)}`);
    expect(await errorRow.textContent()).toMatch(/just now|min ago/);
    await screenshot(page, '05-overview-with-usage');

    // Models and plan pages.
    await page.getByRole('navigation').getByRole('link', { name: 'Models' }).click();
    await page.getByRole('heading', { name: 'tessera-long-100k' }).waitFor();
    await screenshot(page, '06-models');
    await page.getByRole('navigation').getByRole('link', { name: 'Plan & limits' }).click();
    await page.getByText('Allowance this month').waitFor();
    expect(await page.getByRole('main').textContent()).toContain('Free');
    await screenshot(page, '07-plan');

    // The GraphQL explorer is bundled and loads on demand (the content security policy allows only 'self').
    await page.getByRole('navigation').getByRole('link', { name: 'GraphQL explorer' }).click();
    await page.locator('.graphiql-query-editor .CodeMirror-code', { hasText: 'viewer' }).waitFor();
    await screenshot(page, '08-explorer');

    // Revoke after confirmation; the next call is refused.
    await page.getByRole('navigation').getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('button', { name: 'Revoke e2e backend' }).click();
    await page.getByRole('button', { name: 'Yes, revoke' }).click();
    await page.getByText(/^Revoked ./).waitFor();
    await screenshot(page, '09-key-revoked');
    await expect(
      client.chat.completions.create({
        model: 'tessera-fast-4k',
        messages: [{ role: 'user', content: 'again' }],
      }),
    ).rejects.toMatchObject({ status: 401 });

    // Phone width: the same pages stay usable.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await screenshot(page, '10-keys-phone');
    await page.getByRole('navigation').getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('table', { name: 'Requests per endpoint' }).waitFor();
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot(page, '11-overview-phone');
    await page.setViewportSize({ width: 1360, height: 900 });

    // Sign out, then back in: a wrong password is refused with the server's message.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('Email').fill('e2e@example.com');
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Incorrect email or password.').waitFor();
    await page.getByLabel('Password').fill('a long enough password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
