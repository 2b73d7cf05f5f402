import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { dirname, join, relative } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountWithKey } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';
import { CHROMIUM, chromiumInstalled, launchChromium } from './harness';

const hasChromium = chromiumInstalled();
if (!hasChromium) {
  console.warn(`Browser tests skipped: ${CHROMIUM} is missing. Install it with: apt-get install -y chromium`);
}

/** The openai package's own ES modules, which the page imports as a browser app would bundle them. */
const OPENAI_DIR = dirname(createRequire(import.meta.url).resolve('openai'));

const PAGE = `<!doctype html><title>another origin</title>
<script type="module">import OpenAI from '/openai/index.mjs'; globalThis.OpenAI = OpenAI;</script>`;

type SdkPage = typeof globalThis & { OpenAI: typeof import('openai').default };

/** Another origin (another port): an empty page, and the openai package under /openai/. */
async function startPageServer(): Promise<{ origin: string; server: Server }> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://page').pathname;
    if (path === '/') {
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(PAGE);
      return;
    }
    const file = join(OPENAI_DIR, path.replace(/^\/openai\//, ''));
    if (
      !path.startsWith('/openai/') ||
      !file.endsWith('.mjs') ||
      relative(OPENAI_DIR, file).startsWith('..')
    ) {
      res.statusCode = 404;
      res.end();
      return;
    }
    readFile(file).then(
      (text) => {
        res.setHeader('content-type', 'text/javascript; charset=utf-8');
        res.end(text);
      },
      () => {
        res.statusCode = 404;
        res.end();
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

interface PageResult {
  content?: string | null;
  requestId?: string | null;
  remaining?: string | null;
  chunks?: number;
  error?: string;
}

describe.skipIf(!hasChromium)('a page on another origin calls the API in a real Chromium', () => {
  let api: TestServer;
  let pageServer: Server;
  let browser: Browser;
  let page: Page;
  let key: string;

  beforeAll(async () => {
    const started = await startPageServer();
    pageServer = started.server;
    api = await startTestServer({ env: { SIMULATOR_TOKEN_DELAY_MS: '0', CORS_ORIGINS: started.origin } });
    key = (await createAccountWithKey(api)).key.key;
    browser = await launchChromium();
    page = await browser.newPage();
    await page.goto(`${started.origin}/`);
    await page.waitForFunction(() => 'OpenAI' in globalThis);
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => pageServer?.close(resolve));
    await api?.close();
  });

  it('with the openai SDK (dangerouslyAllowBrowser), plain and streamed', async () => {
    const result = await page.evaluate(
      async ({ baseURL, apiKey }): Promise<PageResult> => {
        const client = new (globalThis as SdkPage).OpenAI({
          apiKey,
          baseURL,
          dangerouslyAllowBrowser: true,
          maxRetries: 0,
        });
        const messages = [{ role: 'user' as const, content: 'Explain glaciers' }];
        const { data, response } = await client.chat.completions
          .create({ model: 'tessera-fast-4k', messages })
          .withResponse();
        let chunks = 0;
        const stream = await client.chat.completions.create({
          model: 'tessera-fast-4k',
          messages,
          stream: true,
        });
        for await (const _chunk of stream) chunks++;
        return {
          content: data.choices[0]?.message.content,
          requestId: response.headers.get('x-request-id'),
          remaining: response.headers.get('x-ratelimit-remaining-requests'),
          chunks,
        };
      },
      { baseURL: `${api.url}/v1`, apiKey: key },
    );
    expect(result.content).toMatch(/glacier/i);
    expect(result.requestId).toBeTruthy();
    expect(result.remaining).toMatch(/^\d+$/);
    expect(result.chunks).toBeGreaterThan(2);
  });

  it('reads an error (a bad key) and is refused the playground, which the session cookie authenticates', async () => {
    const result = await page.evaluate(async (url) => {
      const bad = await fetch(`${url}/v1/models`, { headers: { authorization: 'Bearer sk_test_nope' } });
      const body = (await bad.json()) as { error: { code: string } };
      let playground = 'answered';
      try {
        await fetch(`${url}/api/playground/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-tessera-csrf': '1' },
          body: '{}',
        });
      } catch (e) {
        playground = (e as Error).name;
      }
      return { status: bad.status, code: body.error.code, playground };
    }, api.url);
    expect(result).toEqual({ status: 401, code: 'invalid_api_key', playground: 'TypeError' });
  });

  it('is refused by a server that names no origin (the default): a key in a page is not for pages', async () => {
    const closed = await startTestServer({ env: { SIMULATOR_TOKEN_DELAY_MS: '0' } });
    try {
      const closedKey = (await createAccountWithKey(closed)).key.key;
      const result = await page.evaluate(
        async ({ url, apiKey }) => {
          try {
            await fetch(`${url}/v1/models`, { headers: { authorization: `Bearer ${apiKey}` } });
            return 'answered';
          } catch (e) {
            return (e as Error).name;
          }
        },
        { url: closed.url, apiKey: closedKey },
      );
      expect(result).toBe('TypeError');
    } finally {
      await closed.close();
    }
  });
});
