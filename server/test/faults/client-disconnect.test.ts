import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/chat-setup';
import { createAccountWithKey } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';
import {
  type FaultUpstream,
  fillDatabasePool,
  openHandles,
  reservedTokens,
  settledHandles,
  startFaultUpstream,
  usageEventsOfAccount,
  writeFaultCatalogue,
} from './fault-upstreams';

// chat/provider-failures.test.ts already proves that a client leaving mid-stream aborts the upstream call promptly and
// that settle() is called with the tokens so far (through a spy). Added here: the same for a whole (non-streamed)
// answer, and for both that the reservation is really released in the database, the request is metered as 499,
// and no socket or timer is left behind.
let upstream: FaultUpstream;
let server: TestServer;
let key: string;
let accountId: string;
let baseline: { sockets: number; timers: number };

beforeAll(async () => {
  upstream = await startFaultUpstream();
  server = await startTestServer({
    env: {
      MODELS_FILE: writeFaultCatalogue(),
      OPENAI_BASE_URL: `${upstream.url}/v1`,
      OPENAI_API_KEY: 'sk-upstream-disconnect-secret',
      MODEL_TIMEOUT_MS: '20000',
    },
  });
  const created = await createAccountWithKey(server, { plan: 'pro', kind: 'live' });
  key = created.key.key;
  accountId = created.account.id;
  await fillDatabasePool(server);
});
afterAll(async () => {
  await server?.close();
  await upstream?.close();
});
beforeEach(async () => {
  // A healthy call first, so that keep-alive sockets are part of the baseline.
  await (await send('f-ok', false)).text();
  await new Promise((r) => setTimeout(r, 200));
  baseline = openHandles();
});

function send(model: string, stream: boolean, signal?: AbortSignal): Promise<Response> {
  return fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Say hello' }], stream }),
    ...(signal && { signal }),
  });
}

async function gone(): Promise<number> {
  return (await usageEventsOfAccount(server, accountId)).filter((e) => e.status === 499).length;
}

async function expectSettled(
  closedBefore: number,
  requestsBefore: number,
  goneBefore: number,
): Promise<void> {
  // The upstream saw its connection closed before it answered.
  await eventually(() => upstream.closedEarly > closedBefore, 5_000);
  expect(upstream.requests.length).toBe(requestsBefore + 1);
  // The reservation (prompt + the 256-token cap) is settled and released in the database.
  const deadline = Date.now() + 5_000;
  while ((await reservedTokens(server, accountId)) > 0 && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 100));
  expect(await reservedTokens(server, accountId)).toBe(0);
  const metered = Date.now() + 5_000;
  while ((await gone()) === goneBefore && Date.now() < metered) await new Promise((r) => setTimeout(r, 50));
  expect(await gone()).toBe(goneBefore + 1);
  const after = await settledHandles(baseline);
  expect(after.sockets).toBeLessThanOrEqual(baseline.sockets);
  expect(after.timers).toBeLessThanOrEqual(baseline.timers);
}

describe('client disconnects', () => {
  it('while a whole answer is awaited (slow upstream): upstream aborted, reservation released, 499 metered', async () => {
    const [closed, requests, before] = [upstream.closedEarly, upstream.requests.length, await gone()];
    const controller = new AbortController();
    const pending = send('f-slow', false, controller.signal).catch((e: unknown) => e);
    await eventually(() => upstream.requests.length > requests, 5_000);
    expect(await reservedTokens(server, accountId)).toBeGreaterThan(256);
    controller.abort();
    expect(await pending).toBeInstanceOf(Error);
    await expectSettled(closed, requests, before);
  });

  it('mid-stream (dripping upstream): upstream aborted, reservation released, 499 metered', async () => {
    const [closed, requests, before] = [upstream.closedEarly, upstream.requests.length, await gone()];
    const controller = new AbortController();
    const res = await send('f-drip', true, controller.signal);
    expect(res.status).toBe(200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    while ((text.match(/"content":" w/g) ?? []).length < 5) {
      const { value } = await reader.read();
      text += new TextDecoder().decode(value);
    }
    expect(await reservedTokens(server, accountId)).toBeGreaterThan(256);
    controller.abort();
    await reader.read().catch(() => undefined);
    await expectSettled(closed, requests, before);
  });
});
