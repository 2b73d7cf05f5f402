import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/modules/accounts';
import { createKey } from '../../src/modules/keys';
import type { RunningServer } from '../../src/server';
import type { Services } from '../../src/services';
import {
  CHROMIUM,
  chromiumInstalled,
  dashboardBuild,
  launchChromium,
  newContext,
  screenshot,
  startDashboardServer,
} from './harness';

const hasChromium = chromiumInstalled();
if (!hasChromium) {
  console.warn(`Browser tests skipped: ${CHROMIUM} is missing. Install it with: apt-get install -y chromium`);
}

/** The id of the focused element (strings, so the server's tsconfig, without the DOM lib, need not know them). */
const focusedId = (page: Page) => page.evaluate<string>('document.activeElement?.id ?? ""');

async function signUp(page: Page, email: string): Promise<void> {
  await page.goto('/playground');
  await page.getByRole('link', { name: 'Create an account' }).click();
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('a long enough password');
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  await page.getByRole('navigation').getByRole('link', { name: 'Playground' }).click();
  await page.getByRole('heading', { name: 'Playground' }).waitFor();
}

const run = promisify(execFile);
/** Where the copied SDK code runs: the server package, which has the openai package installed. */
const SERVER_DIR = fileURLToPath(new URL('../../', import.meta.url));

/** The text of an OpenAI chat completion stream as curl prints it. */
function streamedText(sse: string): string {
  return sse
    .split('\n')
    .filter((line) => line.startsWith('data: {'))
    .map((line) => (JSON.parse(line.slice(6)) as { choices: { delta: { content?: string } }[] }).choices[0])
    .map((choice) => choice?.delta.content ?? '')
    .join('');
}

/** The last answer of the conversation, once its stream has ended (its facts show then). */
async function lastAnswer(page: Page, count: number): Promise<Locator> {
  const answers = page.locator('.turn-assistant');
  await expect.poll(() => page.getByTestId('reply-usage').count(), { timeout: 15_000 }).toBe(count);
  return answers.nth(count - 1);
}

describe.skipIf(!hasChromium)('the dashboard playground in a real Chromium against the real server', () => {
  let server: RunningServer & { services: Services };
  /** A test key of another account, for running the copied code: test keys get the same simulated answers. */
  let testKey: string;
  let browser: Browser;

  beforeAll(async () => {
    server = await startDashboardServer(dashboardBuild());
    const ctx = server.services.ctx;
    const owner = await createAccount({
      ctx,
      input: { email: 'code-runner@example.com', password: 'a long enough password' },
    });
    testKey = (await createKey({ ctx, accountId: owner.id, input: { name: 'copied code', kind: 'test' } }))
      .key;
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  for (const [width, name] of [
    [1440, 'desktop'],
    [390, 'phone'],
  ] as const) {
    it(`chats with settings, copies the request as code, and shows a finding's trace (${width} px)`, async () => {
      const context = await newContext(browser, server.url, width);
      const page = await context.newPage();
      const pageErrors: string[] = [];
      page.on('pageerror', (err) => pageErrors.push(err.message));
      await signUp(page, `play-${name}@example.com`);

      // Settings: a system prompt, a model, a temperature and a cap the answer runs into.
      await page.getByLabel('System prompt').fill("You are terse. Don't ramble.");
      await page.getByLabel('Model').selectOption('tessera-fast-4k');
      await page.getByLabel('Temperature').fill('0.2');
      await page.getByLabel('Max tokens').fill('12');

      // Shift+Enter breaks the line, Enter sends.
      const box = page.getByLabel('Message');
      await box.click();
      await page.keyboard.type('Name three rivers');
      await page.keyboard.press('Shift+Enter');
      await page.keyboard.type('in Europe, please');
      expect(await box.inputValue()).toBe('Name three rivers\nin Europe, please');
      await page.keyboard.press('Enter');
      const first = await lastAnswer(page, 1);
      expect(await box.inputValue()).toBe('');
      expect(await page.locator('.turn-user p').first().textContent()).toBe(
        'Name three rivers\nin Europe, please',
      );
      const usage = (await first.getByTestId('reply-usage').textContent()) ?? '';
      const [, prompt, completion] = /^(\d+) prompt \+ (\d+) completion tokens$/.exec(usage) ?? [];
      expect(Number(prompt)).toBeGreaterThan(10);
      expect(Number(completion)).toBe(12);
      expect(await first.getByTestId('reply-latency').textContent()).toMatch(
        /^\d+(\.\d+)? m?s \(first token \d+(\.\d+)? m?s\)$/,
      );
      expect(await first.getByTestId('reply-provider').textContent()).toBe('Simulated · tessera-sim-2');
      // The reply has ended: focus is still in the message box, not on the page's body.
      expect(await focusedId(page)).toBe('pg-message');

      // Sent with the button this time: the button turns into Stop and back, and focus comes back to the box.
      await box.fill('And three lakes?');
      await page.getByRole('button', { name: 'Send' }).click();
      const second = await lastAnswer(page, 2);
      await page.getByRole('button', { name: 'Send' }).waitFor();
      expect(await focusedId(page)).toBe('pg-message');
      await screenshot(page, `playground-chat-${name}`);

      // The same request as curl: the key is a placeholder, the body is what was sent, and it is accepted.
      await second.getByRole('button', { name: 'Copy as curl' }).click();
      await second.getByRole('button', { name: 'Copied' }).waitFor();
      const curl = await page.evaluate<string>('navigator.clipboard.readText()');
      expect(curl).toContain(`curl ${server.url}/v1/chat/completions`);
      expect(curl).toContain('Authorization: Bearer $TESSERA_API_KEY');
      const body = /-d '([\s\S]*)'$/.exec(curl)?.[1]?.replaceAll(`'\\''`, "'") ?? '';
      expect(JSON.parse(body)).toMatchObject({
        model: 'tessera-fast-4k',
        temperature: 0.2,
        max_tokens: 12,
        messages: [
          { role: 'system', content: "You are terse. Don't ramble." },
          { role: 'user', content: 'Name three rivers\nin Europe, please' },
          { role: 'assistant' },
          { role: 'user', content: 'And three lakes?' },
        ],
      });
      const replay = await page.evaluate<number>(
        `fetch('/api/playground/chat/completions', { method: 'POST', headers: { 'content-type':
          'application/json', 'x-tessera-csrf': '1' }, body: ${JSON.stringify(body)} }).then((r) => r.status)`,
      );
      expect(replay).toBe(200);

      // Run as copied, with a key in the variable: the same answer as the page showed.
      const shown = (await second.getByTestId('assistant-reply').textContent()) ?? '';
      const env = { ...process.env, TESSERA_API_KEY: testKey };
      const curlRun = await run('bash', ['-c', curl], { env });
      expect(streamedText(curlRun.stdout)).toBe(shown);

      await second.getByRole('button', { name: 'Copy as openai SDK (Node)' }).click();
      const sdk = await page.evaluate<string>('navigator.clipboard.readText()');
      const sdkRun = await run(process.execPath, ['--input-type=module', '-e', sdk], {
        env,
        cwd: SERVER_DIR,
      });
      expect(sdkRun.stdout.startsWith(`${shown}\n`)).toBe(true);
      expect(sdkRun.stdout).toContain('completion_tokens: 12');
      expect(sdk).toContain("import OpenAI from 'openai';");
      expect(sdk).toContain('apiKey: process.env.TESSERA_API_KEY');
      expect(sdk).toContain(`baseURL: "${server.url}/v1"`);
      expect(sdk).toContain('"max_tokens": 12');
      await second.getByText('Show code').click();
      await second.getByText('openai SDK (Node)', { exact: true }).scrollIntoViewIfNeeded();
      await screenshot(page, `playground-code-${name}`);

      // Code analysis of the vulnerable sample: the SQL injection's trace, source to sink, with line numbers.
      await page.getByRole('tab', { name: 'Code analysis' }).click();
      await page.getByRole('button', { name: 'Analyse' }).click();
      const trace = page.getByRole('list', { name: /^Trace of security\/sql-injection on line 14/ });
      await trace.waitFor();
      const steps = await trace.getByRole('listitem').allTextContents();
      expect(steps[0]).toMatch(/^line 11 source: request\.args\.get\("name", ?""\)/);
      expect(steps.some((s) => s.startsWith('line 13 query = …'))).toBe(true);
      expect(steps.at(-1)).toMatch(/^line 14 sink: .*execute/);
      expect(await page.getByRole('table', { name: 'Findings' }).textContent()).toContain(
        'security/weak-hash',
      );
      await screenshot(page, `playground-trace-${name}`);

      const overflow = await page.evaluate<number>(
        'document.documentElement.scrollWidth - window.innerWidth',
      );
      expect(overflow).toBeLessThanOrEqual(0);
      expect(pageErrors).toEqual([]);
      await context.close();
    });
  }
});
