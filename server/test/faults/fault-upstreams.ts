import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createNetServer } from 'node:net';
import { eq, sql } from 'drizzle-orm';
import { allowancePeriods, usageEvents } from '../../src/db/schema';
import { MonthlyTokenAllowance } from '../../src/modules/allowance';
import { catalogueEntry, writeCatalogue } from '../helpers/chat-setup';
import type { TestServer } from '../helpers/server';

/**
 * An OpenAI-compatible upstream that misbehaves on the wire, chosen by the upstream model name:
 *   ok          answers at once (whole or streamed)
 *   reset-mid   streamed: three chunks, then the socket is destroyed; whole: half a body, then destroyed
 *   garbage     status 200 with bytes that are neither JSON nor SSE (whole and streamed)
 *   slow        says nothing for a minute (client disconnects while waiting)
 *   drip        streams a word every 50 ms for a long time (client disconnects mid-stream)
 * `closedEarly` counts connections closed by our server before the answer ended (the upstream saw the abort).
 */
export interface FaultUpstream {
  url: string;
  requests: string[];
  closedEarly: number;
  close(): Promise<void>;
}

const GARBAGE = Buffer.from([
  0x00, 0xff, 0xfe, 0x3c, 0x68, 0x74, 0x0a, 0x9c, 0x7b, 0x7b, 0x0a, 0x0a, 0x1b, 0x5b,
]);

export async function startFaultUpstream(): Promise<FaultUpstream> {
  const state = { requests: [] as string[], closedEarly: 0 };
  const server: Server = createServer(async (req, res) => {
    const parts: Buffer[] = [];
    for await (const part of req) parts.push(part as Buffer);
    const body = JSON.parse(Buffer.concat(parts).toString('utf8')) as { model: string; stream?: boolean };
    state.requests.push(body.model);
    res.on('close', () => {
      if (!res.writableFinished) state.closedEarly += 1;
    });
    const base = { id: 'chatcmpl-up', created: 1_700_000_000, model: body.model };
    const chunk = (content: string) =>
      `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
    if (body.model === 'garbage') {
      res.writeHead(200, { 'content-type': body.stream ? 'text/event-stream' : 'application/json' });
      res.end(Buffer.concat([GARBAGE, GARBAGE, GARBAGE]));
      return;
    }
    if (body.model === 'slow') {
      setTimeout(() => res.destroyed || res.end('{}'), 60_000).unref();
      return;
    }
    if (!body.stream && body.model === 'reset-mid') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '400' });
      res.write('{"id":"chatcmpl-up","object":"chat.completion","choices":[{"index":0,"mess');
      setTimeout(() => res.socket?.destroy(), 50);
      return;
    }
    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          ...base,
          object: 'chat.completion',
          choices: [{ index: 0, message: { role: 'assistant', content: 'fine' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 9, completion_tokens: 1, total_tokens: 10 },
        }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const words = body.model === 'drip' ? 2_000 : body.model === 'reset-mid' ? 3 : 2;
    for (let i = 0; i < words && !res.destroyed; i++) {
      res.write(chunk(` w${i}`));
      await new Promise((r) => setTimeout(r, body.model === 'drip' ? 50 : 5));
    }
    if (body.model === 'reset-mid') {
      res.socket?.destroy();
      return;
    }
    if (res.destroyed) return;
    res.write(
      `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`,
    );
    res.end('data: [DONE]\n\n');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return state.requests;
    },
    get closedEarly() {
      return state.closedEarly;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** A loopback URL nothing listens on (the port was just free): connections to it are refused. */
export async function refusedUrl(): Promise<string> {
  const probe = createNetServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((r) => probe.close(() => r()));
  return `http://127.0.0.1:${port}`;
}

/** f-* models on the OpenAI provider, f-refused and a-* on the Anthropic one (a refused port or the fault upstream). */
export function writeFaultCatalogue(): string {
  const entry = (id: string, provider: string, upstream: string) =>
    catalogueEntry(id, provider, upstream, { max_output_tokens: 256, description: `fault ${upstream}` });
  return writeCatalogue([
    entry('f-ok', 'openai', 'ok'),
    entry('f-reset', 'openai', 'reset-mid'),
    entry('f-garbage', 'openai', 'garbage'),
    entry('f-slow', 'openai', 'slow'),
    entry('f-drip', 'openai', 'drip'),
    entry('f-refused', 'anthropic', 'ok'),
    entry('a-garbage', 'anthropic', 'garbage'),
    entry('a-reset', 'anthropic', 'reset-mid'),
  ]);
}

/** Sockets and timers of this process (the server runs in it), by kind. */
export function openHandles(): { sockets: number; timers: number } {
  const info = process.getActiveResourcesInfo();
  return {
    sockets: info.filter((r) => r === 'TCPSocketWrap').length,
    timers: info.filter((r) => r === 'Timeout').length,
  };
}

/** Waits (up to `ms`) for sockets and timers to come back to the baseline; returns what it saw last. */
export async function settledHandles(
  baseline: { sockets: number; timers: number },
  ms = 6_000,
): Promise<{ sockets: number; timers: number }> {
  const deadline = Date.now() + ms;
  let now = openHandles();
  while ((now.sockets > baseline.sockets || now.timers > baseline.timers) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    now = openHandles();
  }
  return now;
}

/** The usage event of one request (recorded when its response closes, so polled), after flushing the buffer. */
export async function usageEventOf(server: TestServer, requestId: string) {
  const deadline = Date.now() + 5_000;
  for (;;) {
    await server.services.usage.flush();
    const [row] = await server.services.ctx.db
      .select()
      .from(usageEvents)
      .where(eq(usageEvents.requestId, requestId));
    if (row || Date.now() > deadline) return row;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Opens every connection of the server's Postgres pool (each is a socket and a lifetime timer), so that pool
 * growth during a test is not mistaken for a leak. Nothing to do on PGlite.
 */
export async function fillDatabasePool(server: TestServer, size = 5): Promise<void> {
  if (!server.databaseUrl) return;
  await Promise.all(
    Array.from({ length: size }, () => server.services.ctx.db.execute(sql`select pg_sleep(0.1)`)),
  );
}

/** Tokens still held by unsettled reservations of an account (0 once every call settled). */
export async function reservedTokens(server: TestServer, accountId: string): Promise<number> {
  // Calls of a large allowance are admitted from a lease: closing the leases gives back every token not
  // held by a call still running, so what remains reserved is exactly what running calls hold.
  if (server.services.allowance instanceof MonthlyTokenAllowance)
    await server.services.allowance.closeLeases();
  const rows = await server.services.ctx.db
    .select({ reserved: allowancePeriods.reserved })
    .from(allowancePeriods)
    .where(eq(allowancePeriods.accountId, accountId));
  return rows.reduce((n, r) => n + r.reserved, 0);
}

/** Every usage event of an account, after flushing the buffer. */
export async function usageEventsOfAccount(server: TestServer, accountId: string) {
  await server.services.usage.flush();
  return server.services.ctx.db.select().from(usageEvents).where(eq(usageEvents.accountId, accountId));
}
