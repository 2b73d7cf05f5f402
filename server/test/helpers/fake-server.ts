import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The fake upstreams' HTTP side (fake-upstreams.ts speaks the wire formats): a loopback server that records each
 * request, the failures common to both formats, and the pace of a streamed answer.
 */
export interface FakeUpstream {
  url: string;
  /** Every request body received, in order. */
  requests: { path: string; headers: IncomingMessage['headers']; body: Record<string, unknown> }[];
  /** Times (performance.now) at which a client connection closed before its answer was complete. */
  aborts: number[];
  /** TCP connections accepted so far (a client that keeps its connections alive opens few). */
  readonly connections: number;
  close(): Promise<void>;
}

export const LINGER_MS = 200;
export const FAKE_TEXT = 'Hello from the fake upstream.';
export const FAKE_WORDS = ['Hello', ' from', ' the', ' fake', ' upstream.'];
/** The `longnousage` answer: longer than a prompt Tessera counts on its event loop (LONG_PROMPT_CHARS). */
export const LONG_WORDS = Array.from({ length: 2_500 }, (_, i) => ` tide${i % 97} moon`);
/** The `toolsnousage` answer: the tool's name, then its arguments in pieces. */
export const TOOL_CALL_PIECES = ['lookup', '{"query":', ' "tides and', ' moons"}'];

export interface Options {
  slowMs?: number;
  dripMs?: number;
}

export type Handler = (ctx: {
  req: IncomingMessage;
  res: ServerResponse;
  body: Record<string, unknown>;
  behaviour: string;
  stream: boolean;
  options: Required<Options>;
}) => Promise<void>;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return JSON.parse(Buffer.concat(parts).toString('utf8')) as Record<string, unknown>;
}

export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function promptKey(body: Record<string, unknown>): string {
  return JSON.stringify(body.messages ?? body.input);
}

/** Behaviours common to both formats: failures before any answer. Returns true when it answered. */
async function failures(
  behaviour: string,
  body: Record<string, unknown>,
  res: ServerResponse,
  seen: Set<string>,
): Promise<boolean> {
  if (behaviour === 'fail500') {
    json(res, 500, {
      error: { message: 'internal failure, key sk-upstream-secret-123', type: 'server_error' },
    });
    return true;
  }
  if (behaviour === 'fail429') {
    json(res, 429, { error: { message: 'Rate limit reached', type: 'requests' } }, { 'retry-after': '1' });
    return true;
  }
  const status = /^fail(\d{3})$/.exec(behaviour);
  if (status) {
    json(res, Number(status[1]), { error: { message: `failed with ${status[1]}`, type: 'error' } });
    return true;
  }
  if (behaviour === 'flaky' && !seen.has(promptKey(body))) {
    seen.add(promptKey(body));
    json(res, 503, { error: { message: 'overloaded', type: 'server_error' } });
    return true;
  }
  if (behaviour === 'garbage') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('<html>proxy error</html>');
    return true;
  }
  if (behaviour === 'html') {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<html><body>502 Bad Gateway</body></html>');
    return true;
  }
  if (behaviour === 'reset') {
    res.socket?.destroy();
    return true;
  }
  return false;
}

export async function startFake(handler: Handler, options: Options): Promise<FakeUpstream> {
  const requests: FakeUpstream['requests'] = [];
  const aborts: number[] = [];
  const seen = new Set<string>();
  const resolved = { slowMs: options.slowMs ?? 1_500, dripMs: options.dripMs ?? 50 };
  const server: Server = createServer((req, res) => {
    readJson(req)
      .then(async (body) => {
        requests.push({ path: req.url ?? '', headers: req.headers, body });
        res.on('close', () => {
          if (!res.writableFinished) aborts.push(performance.now());
        });
        const behaviour = String(body.model);
        if (await failures(behaviour, body, res, seen)) return;
        await handler({ req, res, body, behaviour, stream: body.stream === true, options: resolved });
      })
      .catch(() => {
        if (!res.headersSent) json(res, 400, { error: { message: 'bad request to fake upstream' } });
        else res.destroy();
      });
  });
  let connections = 0;
  server.on('connection', () => {
    connections += 1;
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    aborts,
    get connections() {
      return connections;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** Writes words as a stream, honouring the slow, stall and drip behaviours. */
export async function streamWords(
  res: ServerResponse,
  behaviour: string,
  options: Required<Options>,
  send: (word: string) => void,
): Promise<boolean> {
  if (behaviour === 'slow') await sleep(options.slowMs);
  const words =
    behaviour === 'drip'
      ? Array.from({ length: 400 }, (_, i) => ` w${i}`)
      : behaviour === 'longnousage'
        ? LONG_WORDS
        : FAKE_WORDS;
  for (const [i, word] of words.entries()) {
    if (res.destroyed) return false;
    if (behaviour === 'stall' && i === 2) return false;
    if (behaviour === 'drip') await sleep(options.dripMs);
    send(word);
  }
  return true;
}
