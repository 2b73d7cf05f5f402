import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What a fake deployment does with the next calls: answer (`ok`), fail with a 500, answer 429 with a
 * `retry-after` of `retryAfter` seconds, never answer (`stall`), accept a stream and then say nothing
 * (`stall-after-headers`), or send one chunk of a stream and then drop the connection (`break-mid-stream`).
 */
export type DeploymentMode = 'ok' | 'fail' | '429' | 'stall' | 'stall-after-headers' | 'break-mid-stream';

/** One OpenAI-compatible upstream on loopback whose behaviour a test sets as it goes. */
export interface FakeDeployment {
  readonly name: string;
  readonly url: string;
  mode: DeploymentMode;
  /** Seconds in the 429's `retry-after`. */
  retryAfter: number;
  /** Calls received (answered or not), and the `authorization` and `model` each came with. */
  readonly calls: { authorization: string | undefined; model: unknown; stream: boolean }[];
  close(): Promise<void>;
}

async function bodyOf(req: IncomingMessage): Promise<Record<string, unknown>> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return JSON.parse(Buffer.concat(parts).toString('utf8')) as Record<string, unknown>;
}

const usage = { prompt_tokens: 9, completion_tokens: 3, total_tokens: 12 };

function chunk(content: string | null, finish: string | null, withUsage = false): string {
  const delta = content === null ? {} : { content };
  const body = {
    id: 'chatcmpl-fake',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'fake',
    choices: withUsage ? [] : [{ index: 0, delta, finish_reason: finish }],
    ...(withUsage && { usage }),
  };
  return `data: ${JSON.stringify(body)}\n\n`;
}

/** Starts a fake deployment answering `answered by <name>` (in two chunks when streamed). */
export async function startFakeDeployment(name: string): Promise<FakeDeployment> {
  const open = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    void handle(req, res);
  });
  const fake: FakeDeployment = {
    name,
    url: '',
    mode: 'ok',
    retryAfter: 1,
    calls: [],
    async close() {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await bodyOf(req);
    const stream = body.stream === true;
    fake.calls.push({ authorization: req.headers.authorization, model: body.model, stream });
    const mode = fake.mode;
    if (mode === 'stall' || (mode === 'stall-after-headers' && !stream)) {
      open.add(res);
      return;
    }
    if (mode === 'fail') {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'boom' } }));
      return;
    }
    if (mode === '429') {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(fake.retryAfter) });
      res.end(JSON.stringify({ error: { message: 'slow down' } }));
      return;
    }
    const text = `answered by ${name}`;
    if (!stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'chatcmpl-fake',
          object: 'chat.completion',
          created: 1,
          model: String(body.model),
          choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
          usage,
        }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.flushHeaders();
    if (mode === 'stall-after-headers') {
      open.add(res);
      return;
    }
    res.write(chunk('answered', null));
    if (mode === 'break-mid-stream') {
      await new Promise((r) => setTimeout(r, 50));
      res.destroy();
      return;
    }
    res.write(chunk(` by ${name}`, null));
    res.write(chunk(null, 'stop'));
    res.write(chunk(null, null, true));
    res.end('data: [DONE]\n\n');
  }
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  (fake as { url: string }).url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return fake;
}
