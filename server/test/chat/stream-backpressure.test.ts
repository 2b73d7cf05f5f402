/**
 * A streaming client slower than the model: its stream, and the upstream's, wait for it instead of being
 * buffered in memory without end, and nothing is lost; a client that stops reading altogether is cut off and
 * metered.
 */
import { type IncomingMessage, request } from 'node:http';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usageEvents } from '../../src/db/schema';
import { catalogueEntry, writeCatalogue } from '../helpers/chat-setup';
import { type FakeUpstream, FLOOD, startFakeOpenAi } from '../helpers/fake-upstreams';
import { createAccountWithKey } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';

const STALL_MS = 2_500;
let upstream: FakeUpstream;
let server: TestServer;
let key: { id: string; key: string };

beforeAll(async () => {
  upstream = await startFakeOpenAi();
  server = await startTestServer({
    env: {
      MODELS_FILE: writeCatalogue([catalogueEntry('up-flood', 'openai', 'flood')]),
      OPENAI_BASE_URL: `${upstream.url}/v1`,
      OPENAI_API_KEY: 'sk-upstream',
      // Shorter than the pauses below: the model's silence is not what the stream waits for.
      MODEL_TIMEOUT_MS: '1000',
      STREAM_CLIENT_STALL_MS: String(STALL_MS),
    },
  });
  ({ key } = await createAccountWithKey(server, { plan: 'pro', kind: 'live' }));
});

afterAll(async () => {
  await server?.close();
  await upstream?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A streamed call over a plain connection, resolved with the response once its first bytes are in. */
function openFlood(): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
    });
    req.on('response', resolve).on('error', reject);
    req.end(
      JSON.stringify({ model: 'up-flood', messages: [{ role: 'user', content: 'Flood me' }], stream: true }),
    );
  });
}

/** Reads a response to its end (or its connection's loss) as text. */
function readAll(res: IncomingMessage): Promise<{ text: string; complete: boolean }> {
  return new Promise((resolve) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (piece: string) => {
      text += piece;
    });
    res.on('end', () => resolve({ text, complete: res.complete }));
    res.on('close', () => resolve({ text, complete: res.complete }));
    res.resume();
  });
}

describe('a streaming client slower than the model', () => {
  it('pauses the stream and the upstream while the client does not read, then delivers every chunk', async () => {
    const res = await openFlood();
    expect(res.statusCode).toBe(200);
    // Nothing is read: the kernel's buffers and Tessera's fill, then the upstream has to wait.
    res.pause();
    await sleep(1_200);
    const whilePaused = FLOOD.written;
    expect(whilePaused).toBeLessThan(FLOOD.chunks / 2);
    await sleep(300);
    expect(FLOOD.written - whilePaused).toBeLessThan(50);
    // Reading again: the rest comes, all of it, and the model's timeout (1 s) never fired.
    const { text, complete } = await readAll(res);
    expect(complete).toBe(true);
    const events = text.split('\n\n').filter((e) => e.startsWith('data: '));
    expect(events.at(-1)).toBe('data: [DONE]');
    const content = events
      .slice(0, -1)
      .map((e) => JSON.parse(e.slice(6)) as { choices: { delta: { content?: string } }[] })
      .filter((c) => c.choices[0]?.delta.content === FLOOD.piece);
    expect(content).toHaveLength(FLOOD.chunks);
    expect(FLOOD.written).toBe(FLOOD.chunks);
  });

  it('cuts off a client that reads nothing for STREAM_CLIENT_STALL_MS, aborts the upstream and meters it', async () => {
    const started = performance.now();
    const res = await openFlood();
    res.pause();
    // A paused client notices nothing until it reads again (the connection's end waits behind the unread
    // bytes); Tessera has cut it off: the call is metered as a client that left (499), saying why, with the
    // tokens relayed before it stopped reading.
    let event: typeof usageEvents.$inferSelect | undefined;
    while (!event && performance.now() - started < STALL_MS + 5_000) {
      await sleep(100);
      await server.services.usage.flush();
      const rows = await server.services.ctx.db
        .select()
        .from(usageEvents)
        .where(eq(usageEvents.keyId, key.id));
      event = rows.find((r) => r.status === 499);
    }
    expect(performance.now() - started).toBeGreaterThanOrEqual(STALL_MS);
    expect(event?.errorCode).toBe('client_stalled');
    expect(event?.errorMessage).toContain('STREAM_CLIENT_STALL_MS');
    expect(event?.completionTokens).toBeGreaterThan(0);
    // The upstream's call was aborted with the client's: it writes no more.
    const written = FLOOD.written;
    expect(written).toBeLessThan(FLOOD.chunks);
    await sleep(300);
    expect(FLOOD.written).toBe(written);
    // Reading again, the client finds the stream cut short.
    const { text, complete } = await readAll(res);
    expect(complete).toBe(false);
    expect(text).not.toContain('[DONE]');
  });
});
