import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountWithKey } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';

// A client that sends its request a byte at a time holds a connection (and, once its headers are in, a
// request) for as long as it likes: slow headers got 408 only after 66-96 s, slow bodies were still open
// after 115 s. Both are bounded: HEADERS_TIMEOUT_MS from the request's first byte, BODY_TIMEOUT_MS for the
// body, which a REST route answers with a 408 in OpenAI's body.
let server: TestServer;
let key: string;

beforeAll(async () => {
  server = await startTestServer({ env: { HEADERS_TIMEOUT_MS: '1000', BODY_TIMEOUT_MS: '1500' } });
  key = (await createAccountWithKey(server)).key.key;
});
afterAll(async () => {
  await server?.close();
});

/** Sends `first`, then one byte of `rest` every `everyMs`, until the server closes the connection. */
async function trickle(
  first: string,
  rest: string,
  everyMs: number,
): Promise<{ text: string; closedAfterMs: number }> {
  const socket: Socket = connect(server.port, '127.0.0.1');
  let text = '';
  socket.on('data', (d: Buffer) => {
    text += d.toString();
  });
  socket.on('error', () => {});
  await new Promise((r) => socket.once('connect', r));
  const started = performance.now();
  socket.write(first);
  let sent = 0;
  const timer = setInterval(() => {
    if (sent < rest.length && !socket.destroyed) socket.write(rest[sent++] ?? '');
  }, everyMs);
  await new Promise((r) => socket.once('close', r));
  clearInterval(timer);
  return { text, closedAfterMs: performance.now() - started };
}

describe('slow clients', () => {
  it('headers that trickle in: 408 and the connection closed within HEADERS_TIMEOUT_MS (and 1 s)', async () => {
    const { text, closedAfterMs } = await trickle(
      'GET /v1/models HTTP/1.1\r\n',
      `Host: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nX-Slow: ${'a'.repeat(200)}\r\n\r\n`,
      100,
    );
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(closedAfterMs).toBeGreaterThan(900);
    expect(closedAfterMs).toBeLessThan(3_000);
  }, 20_000);

  it('a body that trickles in: 408 in OpenAI body and the connection closed within BODY_TIMEOUT_MS', async () => {
    const body = JSON.stringify({
      model: 'tessera-fast-4k',
      messages: [{ role: 'user', content: 'x'.repeat(300) }],
    });
    const { text, closedAfterMs } = await trickle(
      [
        'POST /v1/chat/completions HTTP/1.1',
        'Host: 127.0.0.1',
        `Authorization: Bearer ${key}`,
        'Content-Type: application/json',
        `Content-Length: ${body.length}`,
        '',
        body.slice(0, 10),
      ].join('\r\n'),
      body.slice(10),
      100,
    );
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(text).toMatch(/\r\nconnection: close\r\n/i);
    const json = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as unknown;
    expect(json).toEqual({
      error: {
        message:
          'The request body did not arrive within 1500 ms (BODY_TIMEOUT_MS); the connection is closed.',
        type: 'invalid_request_error',
        param: null,
        code: 'request_timeout',
      },
    });
    expect(closedAfterMs).toBeGreaterThan(1_400);
    expect(closedAfterMs).toBeLessThan(4_000);
  }, 20_000);

  it('a body nobody reads (GraphQL) is cut by Node.js at both bounds together', async () => {
    const body = JSON.stringify({ query: `{ __typename ${' '.repeat(200)}}` });
    const { text, closedAfterMs } = await trickle(
      [
        'POST /graphql HTTP/1.1',
        'Host: 127.0.0.1',
        `Authorization: Bearer ${key}`,
        'Content-Type: application/json',
        `Content-Length: ${body.length}`,
        '',
        body.slice(0, 10),
      ].join('\r\n'),
      body.slice(10),
      100,
    );
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    // HEADERS_TIMEOUT_MS + BODY_TIMEOUT_MS + 1 s, checked every second.
    expect(closedAfterMs).toBeLessThan(6_000);
  }, 20_000);
});
