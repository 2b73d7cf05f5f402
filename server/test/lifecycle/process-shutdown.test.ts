import { rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client';
import { usageEvents } from '../../src/db/schema';
import { exited, newDataDir, type ServerProcess, startServerProcess } from '../helpers/process';

// SIGTERM on the real process (src/main.ts), spoken to over raw keep-alive connections: what a load
// balancer's connections see while an instance stops. docs/deployment.md, "Graceful shutdown".
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function start(
  env: Record<string, string>,
): Promise<ServerProcess & { key: string; dataDir: string; port: number }> {
  const dataDir = newDataDir('shutdown');
  dirs.push(dataDir);
  const server = await startServerProcess(dataDir, { LOG_LEVEL: 'warn', ...env }, { expectDemoKey: true });
  return { ...server, key: server.demoKey ?? '', dataDir, port: Number(new URL(server.url).port) };
}

/** A raw connection and everything it received. */
class Connection {
  readonly socket: Socket;
  text = '';
  closed = false;

  constructor(port: number) {
    this.socket = connect(port, '127.0.0.1');
    this.socket.on('data', (d: Buffer) => {
      this.text += d.toString();
    });
    this.socket.on('close', () => {
      this.closed = true;
    });
    this.socket.on('error', () => {});
  }

  async until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`timed out; received so far:\n${this.text}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}

function chatRequest(key: string, maxTokens: number): string {
  const body = JSON.stringify({
    model: 'tessera-fast-4k',
    messages: [{ role: 'user', content: 'Tell me a long story about a lighthouse keeper and the sea' }],
    max_tokens: maxTokens,
    stream: true,
  });
  return [
    'POST /v1/chat/completions HTTP/1.1',
    'Host: 127.0.0.1',
    `Authorization: Bearer ${key}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    '',
    body,
  ].join('\r\n');
}

function requestIdOf(text: string): string {
  return /x-request-id: (\S+)/i.exec(text)?.[1] ?? '';
}

async function usageOf(dataDir: string, requestId: string) {
  const database = openDatabase({ dataDir });
  try {
    const [row] = await database.db.select().from(usageEvents).where(eq(usageEvents.requestId, requestId));
    return row;
  } finally {
    await database.close();
  }
}

describe('SIGTERM', () => {
  it('finishes the stream under way, closes every old connection, refuses new work, exits 0 once idle', async () => {
    const server = await start({ SHUTDOWN_GRACE_MS: '20000', SIMULATOR_TOKEN_DELAY_MS: '40' });
    try {
      const streaming = new Connection(server.port);
      streaming.socket.write(chatRequest(server.key, 40));
      await streaming.until(() => streaming.text.includes('data: {'));
      // A second connection whose first request is still arriving when the signal comes.
      const late = new Connection(server.port);
      late.socket.write(
        `GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${server.key}\r\n`,
      );
      // A third that has served a request already, and whose next one is arriving.
      const reused = new Connection(server.port);
      reused.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      await reused.until(() => reused.text.includes('{"status":"ok"}'));
      reused.socket.write(
        `GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${server.key}\r\n`,
      );
      await new Promise((r) => setTimeout(r, 200));

      const signalled = performance.now();
      server.child.kill('SIGTERM');
      const code = exited(server.child);
      await new Promise((r) => setTimeout(r, 300));
      // Readiness fails at once: the listener is closed, so a probe cannot even connect.
      await expect(fetch(`${server.url}/readyz`)).rejects.toThrow();
      // The request that was arriving is served, with `Connection: close`, and its connection closed.
      late.socket.write('\r\n');
      await late.until(() => late.closed);
      expect(late.text).toMatch(/^HTTP\/1\.1 200/);
      expect(late.text).toMatch(/\r\nconnection: close\r\n/i);
      // The new request on the old connection does not start: 503 to retry elsewhere, connection closed.
      reused.socket.write('\r\n');
      await reused.until(() => reused.closed);
      const second = reused.text.slice(reused.text.indexOf('HTTP/1.1', 10));
      expect(second).toMatch(/^HTTP\/1\.1 503 /);
      expect(second).toMatch(/\r\nretry-after: 1\r\n/i);
      expect(second).toContain('"code":"server_shutting_down"');

      // The stream runs to its end (not reset), then its connection is closed: a request sent on it now
      // gets nothing.
      await streaming.until(() => streaming.text.includes('data: [DONE]'));
      expect(streaming.text).toMatch(/"finish_reason":"(stop|length)"/);
      expect(streaming.text).not.toContain('"error"');
      streaming.socket.write(
        `GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${server.key}\r\n\r\n`,
      );
      await streaming.until(() => streaming.closed);
      expect(streaming.text.match(/HTTP\/1\.1 /g)).toHaveLength(1);

      // Idle now: the process exits at once, not at the end of the 20 s grace period, and with 0.
      expect(await code).toBe(0);
      expect(performance.now() - signalled).toBeLessThan(6_000);
      expect(server.output()).not.toContain('ERR');
      const event = await usageOf(server.dataDir, requestIdOf(streaming.text));
      expect(event).toMatchObject({ status: 200, errorCode: null });
    } finally {
      server.child.kill('SIGKILL');
    }
  }, 90_000);

  it('ends a stream still running at the deadline with an error event and [DONE], metered as such', async () => {
    const server = await start({ SHUTDOWN_GRACE_MS: '1000', SIMULATOR_TOKEN_DELAY_MS: '40' });
    try {
      const streaming = new Connection(server.port);
      streaming.socket.write(chatRequest(server.key, 1000));
      await streaming.until(() => streaming.text.includes('data: {'));
      const signalled = performance.now();
      server.child.kill('SIGTERM');
      await streaming.until(() => streaming.closed, 10_000);
      const events = streaming.text.split('\n').filter((l) => l.startsWith('data: '));
      expect(events.at(-1)).toBe('data: [DONE]');
      expect(JSON.parse((events.at(-2) ?? '').slice('data: '.length))).toEqual({
        error: {
          message: 'The server is shutting down; the request was not completed. Please retry.',
          type: 'server_error',
          param: null,
          code: 'server_shutting_down',
        },
      });
      expect(await exited(server.child)).toBe(0);
      expect(performance.now() - signalled).toBeLessThan(5_000);
      // Recorded as what it was: a response the server ended with its error (503, as a stream that fails after it
      // opened is metered), not a client that went away (499).
      const event = await usageOf(server.dataDir, requestIdOf(streaming.text));
      expect(event).toMatchObject({ status: 503, errorCode: 'server_shutting_down' });
      expect(event?.completionTokens).toBeGreaterThan(0);
    } finally {
      server.child.kill('SIGKILL');
    }
  }, 90_000);
});
