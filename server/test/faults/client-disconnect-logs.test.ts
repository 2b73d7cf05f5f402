import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/chat-setup';
import { createAccountWithKey } from '../helpers/fixtures';
import { LogCapture } from '../helpers/log-capture';
import { startTestServer, type TestServer } from '../helpers/server';
import { type FaultUpstream, startFaultUpstream, writeFaultCatalogue } from './fault-upstreams';

// A client that goes away is ordinary traffic: its request is logged once at info (aborted), never as an
// error with a stack trace, whether it left during a stream, while waiting for a whole answer, or while
// still sending its body.
const logs = new LogCapture();
let upstream: FaultUpstream;
let server: TestServer;
let key: string;

beforeAll(async () => {
  upstream = await startFaultUpstream();
  server = await startTestServer({
    env: {
      LOG_LEVEL: 'info',
      MODELS_FILE: writeFaultCatalogue(),
      OPENAI_BASE_URL: `${upstream.url}/v1`,
      OPENAI_API_KEY: 'sk-upstream-disconnect-logs',
    },
    logs,
  });
  key = (await createAccountWithKey(server, { plan: 'pro', kind: 'live' })).key.key;
});
afterAll(async () => {
  await server?.close();
  await upstream?.close();
});

/** A stream that drips for seconds, or a whole answer that takes seconds (the fault upstream's models). */
function chat(stream: boolean, signal: AbortSignal): Promise<Response> {
  return fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: stream ? 'f-drip' : 'f-slow',
      messages: [{ role: 'user', content: 'Tell a long story about a lighthouse keeper' }],
      max_tokens: 100,
      stream,
    }),
    signal,
  });
}

function accessLine(requestId: string | null): Record<string, unknown> | undefined {
  return logs.find({ msg: 'request', requestId: requestId ?? '' })[0];
}

function expectNoErrorLines(since: number): void {
  const bad = logs
    .entries()
    .slice(since)
    .filter((e) => Number(e.level) >= 50 || JSON.stringify(e).includes('"stack"'));
  expect(bad).toEqual([]);
}

describe('a client that disconnects', () => {
  it('mid-stream: one info line, no error, no stack', async () => {
    const before = logs.raw.length;
    const abort = new AbortController();
    const res = await chat(true, abort.signal);
    expect(res.status).toBe(200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    abort.abort();
    const id = res.headers.get('x-request-id');
    await eventually(() => accessLine(id) !== undefined, 5_000);
    expect(accessLine(id)).toMatchObject({ level: 30, aborted: true });
    // The stream's own end is logged after the access line; give it the time to be written.
    await new Promise((r) => setTimeout(r, 300));
    expectNoErrorLines(before);
  });

  it('before a whole answer was ready: one info line, no error, no stack', async () => {
    const abort = new AbortController();
    const pending = chat(false, abort.signal).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 300));
    const before = logs.raw.length;
    abort.abort();
    await pending;
    await new Promise((r) => setTimeout(r, 1_000));
    const lines = logs.entries().slice(before);
    expect(lines.filter((e) => e.msg === 'request')).toMatchObject([{ level: 30, aborted: true }]);
    expectNoErrorLines(before);
  });

  it('while sending its body: one info line, no error, no stack', async () => {
    const before = logs.raw.length;
    const socket = connect(server.port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    socket.write(
      [
        'POST /v1/chat/completions HTTP/1.1',
        'Host: 127.0.0.1',
        `Authorization: Bearer ${key}`,
        'Content-Type: application/json',
        'Content-Length: 1000',
        '',
        '{"model":"f-ok",',
      ].join('\r\n'),
    );
    await new Promise((r) => setTimeout(r, 200));
    socket.destroy();
    await eventually(
      () =>
        logs
          .entries()
          .slice(before)
          .some((e) => e.msg === 'request'),
      5_000,
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(logs.entries().slice(before)).toMatchObject([{ level: 30, msg: 'request', aborted: true }]);
    expectNoErrorLines(before);
  });
});
