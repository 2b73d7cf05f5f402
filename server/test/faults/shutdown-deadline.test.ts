import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/chat-setup';
import { createAccountWithKey } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';
import { type FaultUpstream, startFaultUpstream, writeFaultCatalogue } from './fault-upstreams';

// A whole (non-streamed) answer still awaited from a slow upstream when the server stops: its response had not
// started, so it carries `Connection: close`, and at the end of the grace period the call is ended with a 503
// to retry elsewhere (lifecycle/process-shutdown.test.ts covers streams, through the real process).
let upstream: FaultUpstream;
let server: TestServer;
let key: string;

beforeAll(async () => {
  upstream = await startFaultUpstream();
  server = await startTestServer({
    env: {
      MODELS_FILE: writeFaultCatalogue(),
      OPENAI_BASE_URL: `${upstream.url}/v1`,
      OPENAI_API_KEY: 'sk-upstream-shutdown-secret',
    },
  });
  key = (await createAccountWithKey(server, { plan: 'pro', kind: 'live' })).key.key;
});
afterAll(async () => {
  await server?.close();
  await upstream?.close();
});

describe('shutdown with a whole answer still awaited', () => {
  it('answers 503 server_shutting_down with retry-after and Connection: close at the deadline', async () => {
    const body = JSON.stringify({ model: 'f-slow', messages: [{ role: 'user', content: 'Say hello' }] });
    const socket = connect(server.port, '127.0.0.1');
    let text = '';
    let closed = false;
    socket.on('data', (d: Buffer) => {
      text += d.toString();
    });
    socket.on('close', () => {
      closed = true;
    });
    socket.write(
      [
        'POST /v1/chat/completions HTTP/1.1',
        'Host: 127.0.0.1',
        `Authorization: Bearer ${key}`,
        'Content-Type: application/json',
        `Content-Length: ${Buffer.byteLength(body)}`,
        '',
        body,
      ].join('\r\n'),
    );
    await eventually(() => upstream.requests.includes('slow'), 5_000);

    const started = performance.now();
    const closing = server.close(800);
    await eventually(() => closed, 5_000);
    expect(text).toMatch(/^HTTP\/1\.1 503 /);
    expect(text).toMatch(/\r\nconnection: close\r\n/i);
    expect(text).toMatch(/\r\nretry-after: 1\r\n/i);
    expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toEqual({
      error: {
        message: 'The server is shutting down; the request was not completed. Please retry.',
        type: 'server_error',
        param: null,
        code: 'server_shutting_down',
      },
    });
    await closing;
    // The grace period, then at once: the answer went out, nothing was left to cut.
    expect(performance.now() - started).toBeLessThan(3_000);
  }, 30_000);
});
