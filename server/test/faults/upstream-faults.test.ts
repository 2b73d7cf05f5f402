import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAccountWithKey } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';
import {
  type FaultUpstream,
  fillDatabasePool,
  openHandles,
  refusedUrl,
  reservedTokens,
  settledHandles,
  startFaultUpstream,
  usageEventOf,
  writeFaultCatalogue,
} from './fault-upstreams';

// Upstream faults that chat/provider-failures.test.ts does not inject: a refused connection, a reset after some chunks,
// bytes that are neither JSON nor SSE in a stream. Each must end in the documented error, be metered, hold no
// reservation and leave no socket or timer behind.
const SECRET = 'sk-upstream-fault-secret-789';

let upstream: FaultUpstream;
let server: TestServer;
let client: OpenAI;
let liveKey: string;
let accountId: string;
let baseline: { sockets: number; timers: number };

beforeAll(async () => {
  upstream = await startFaultUpstream();
  server = await startTestServer({
    env: {
      MODELS_FILE: writeFaultCatalogue(),
      OPENAI_BASE_URL: `${upstream.url}/v1`,
      OPENAI_API_KEY: SECRET,
      ANTHROPIC_BASE_URL: await refusedUrl(),
      ANTHROPIC_API_KEY: SECRET,
      MODEL_TIMEOUT_MS: '5000',
      UPSTREAM_RETRIES: '1',
      UPSTREAM_RETRY_BACKOFF_MS: '20',
    },
  });
  const created = await createAccountWithKey(server, { plan: 'pro', kind: 'live' });
  liveKey = created.key.key;
  accountId = created.account.id;
  await fillDatabasePool(server);
  client = new OpenAI({ apiKey: liveKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await server?.close();
  await upstream?.close();
});
beforeEach(async () => {
  // A healthy call first, so that keep-alive sockets (client → server → upstream) are part of the baseline.
  await client.chat.completions.create({ model: 'f-ok', messages });
  await new Promise((r) => setTimeout(r, 200));
  baseline = openHandles();
});

const messages = [{ role: 'user' as const, content: 'Say hello' }];

async function post(model: string, stream: boolean): Promise<Response> {
  return fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${liveKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages, stream }),
  });
}

interface ErrorBody {
  error: { message: string; type: string; param: unknown; code: string };
}

/** The fault's aftermath: metered with the error, no reservation held, no handle left over. */
async function expectCleanAftermath(requestId: string | null, status: number, code: string): Promise<void> {
  expect(requestId).toBeTruthy();
  const event = await usageEventOf(server, String(requestId));
  expect(event).toMatchObject({ accountId, mode: 'live', route: '/v1/chat/completions', status });
  expect(event?.errorCode).toBe(code);
  expect(event?.errorMessage ?? '').not.toContain(SECRET);
  expect(await reservedTokens(server, accountId)).toBe(0);
  const after = await settledHandles(baseline);
  expect(after.sockets).toBeLessThanOrEqual(baseline.sockets);
  expect(after.timers).toBeLessThanOrEqual(baseline.timers);
}

describe('upstream faults through the real server', () => {
  it('connection refused → 502 upstream_unreachable (OpenAI body, SDK error), metered, nothing leaked', async () => {
    const err = await client.chat.completions
      .create({ model: 'f-refused', messages })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    const e = err as InstanceType<typeof OpenAI.APIError>;
    expect(e.status).toBe(502);
    expect(e.code).toBe('upstream_unreachable');
    expect(e.type).toBe('server_error');
    expect(JSON.stringify(e.error)).not.toContain(SECRET);
    expect(e.message).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
    await expectCleanAftermath(e.requestID ?? null, 502, 'upstream_unreachable');
  });

  it('streamed and refused → the same 502 before any byte of a stream', async () => {
    const res = await post('f-refused', true);
    expect(res.status).toBe(502);
    const body = (await res.json()) as ErrorBody;
    expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
    expect(body.error.code).toBe('upstream_unreachable');
    await expectCleanAftermath(res.headers.get('x-request-id'), 502, 'upstream_unreachable');
  });

  it('reset mid-stream after three chunks → the chunks, an error event, the end of the stream, no [DONE]', async () => {
    const res = await post('f-reset', true);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('"content":" w2"');
    const events = text.split('\n\n').filter((e) => e.startsWith('data: '));
    const last = JSON.parse(events.at(-1)?.slice(6) ?? '{}') as ErrorBody;
    expect(last.error.type).toBe('server_error');
    expect(last.error.code).toBe('upstream_error');
    expect(text).not.toContain('[DONE]');
    expect(text).not.toContain(SECRET);
    // Metered as the error the stream ended with, not as the 200 it opened with.
    await expectCleanAftermath(res.headers.get('x-request-id'), 502, last.error.code);
  });

  it('the SDK sees a reset stream as an APIError after the chunks it got', async () => {
    const stream = await client.chat.completions.create({ model: 'f-reset', messages, stream: true });
    let text = '';
    const failure = await (async () => {
      for await (const c of stream) text += c.choices[0]?.delta.content ?? '';
    })().catch((e: unknown) => e);
    expect(text).toBe(' w0 w1 w2');
    expect(failure).toBeInstanceOf(OpenAI.APIError);
  });

  it('reset in the middle of a whole answer → 502 with the error body', async () => {
    const res = await post('f-reset', false);
    expect(res.status).toBe(502);
    const body = (await res.json()) as ErrorBody;
    expect(body.error.type).toBe('server_error');
    expect(body.error.code).toBe('upstream_error');
    await expectCleanAftermath(res.headers.get('x-request-id'), 502, body.error.code);
  });

  it('garbage bytes as a whole answer → 502 upstream_error', async () => {
    const res = await post('f-garbage', false);
    expect(res.status).toBe(502);
    const body = (await res.json()) as ErrorBody;
    expect(body.error).toMatchObject({ type: 'server_error', code: 'upstream_error', param: null });
    await expectCleanAftermath(res.headers.get('x-request-id'), 502, 'upstream_error');
  });

  it('garbage bytes as a stream → an error event and the end of the stream, no [DONE]', async () => {
    const res = await post('f-garbage', true);
    const text = await res.text();
    expect(text).not.toContain('[DONE]');
    expect(text).not.toContain('\u0000');
    // A stream's headers leave at once (keep-alives), so the failure is an event in it.
    expect(res.status).toBe(200);
    const events = text.split('\n\n').filter((e) => e.startsWith('data: '));
    expect(events).toHaveLength(1);
    const last = JSON.parse(events[0]?.slice(6) ?? '{}') as ErrorBody;
    expect(last.error).toMatchObject({ type: 'server_error', code: 'upstream_error', param: null });
    await expectCleanAftermath(res.headers.get('x-request-id'), 502, 'upstream_error');
  });
});

describe('the same faults on the Anthropic provider', () => {
  let claude: TestServer;
  let claudeKey: string;
  beforeAll(async () => {
    // Anthropic pointed at the fault upstream: its answers are no Messages API stream at all.
    claude = await startTestServer({
      env: {
        MODELS_FILE: writeFaultCatalogue(),
        OPENAI_BASE_URL: await refusedUrl(),
        ANTHROPIC_BASE_URL: upstream.url,
        ANTHROPIC_API_KEY: SECRET,
        UPSTREAM_RETRIES: '0',
      },
    });
    claudeKey = (await createAccountWithKey(claude, { plan: 'pro', kind: 'live' })).key.key;
  });
  afterAll(async () => {
    await claude?.close();
  });

  it.each([
    ['garbage bytes', 'a-garbage'],
    ['a reset after some bytes', 'a-reset'],
  ])('%s in a stream → an upstream_error event, no [DONE]', async (_, model) => {
    const res = await fetch(`${claude.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${claudeKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages, stream: true }),
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain('[DONE]');
    expect(text).not.toContain(SECRET);
    const last =
      text
        .split('\n\n')
        .filter((e) => e.startsWith('data: '))
        .at(-1) ?? '';
    expect((JSON.parse(last.slice(6)) as ErrorBody).error.code).toBe('upstream_error');
    const event = await usageEventOf(claude, String(res.headers.get('x-request-id')));
    expect(event?.errorCode).toBe('upstream_error');
  });
});
