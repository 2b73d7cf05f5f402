import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What a fake Responses upstream does with the next calls: answer (`ok`), fail with a 500, accept a stream and
 * drop the connection before any event (`drop`), send its first events and a delta and then drop it (`break`),
 * send a delta and then report its own failure in its events (`error` and `response.failed`: `fail-in-stream`),
 * or send deltas slowly without end (`drip`).
 */
export type ResponsesMode = 'ok' | 'fail' | 'drop' | 'break' | 'fail-in-stream' | 'drip';

/** An OpenAI-compatible upstream on loopback that speaks `POST /v1/responses` (and plain chat completions). */
export interface FakeResponsesUpstream {
  readonly name: string;
  readonly url: string;
  mode: ResponsesMode;
  /** Every call: its path, `authorization` and body. */
  readonly calls: { path: string; authorization: string | undefined; body: Record<string, unknown> }[];
  close(): Promise<void>;
}

/** The usage every answer reports: what the gateway must meter. */
export const RESPONSES_USAGE = {
  input_tokens: 11,
  input_tokens_details: { cached_tokens: 4 },
  output_tokens: 7,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 18,
};

async function bodyOf(req: IncomingMessage): Promise<Record<string, unknown>> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return JSON.parse(Buffer.concat(parts).toString('utf8')) as Record<string, unknown>;
}

function responseObject(name: string, body: Record<string, unknown>, status: string, text: string | null) {
  const output =
    text === null
      ? []
      : [
          {
            id: `msg_${name}`,
            type: 'message',
            status: 'completed',
            role: 'assistant',
            content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
          },
        ];
  return {
    id: `resp_${name}`,
    object: 'response',
    created_at: 1_767_225_600,
    status,
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model: body.model,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    store: body.store ?? false,
    temperature: 1,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: [],
    top_p: 1,
    truncation: 'disabled',
    usage: status === 'completed' ? RESPONSES_USAGE : null,
    metadata: {},
  };
}

/** Starts a fake answering `relayed by <name>` (in two deltas when streamed). */
export async function startFakeResponses(name: string): Promise<FakeResponsesUpstream> {
  const open = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    void handle(req, res);
  });
  const fake: FakeResponsesUpstream = {
    name,
    url: '',
    mode: 'ok',
    calls: [],
    async close() {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
  const text = `relayed by ${name}`;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await bodyOf(req);
    const path = req.url ?? '';
    fake.calls.push({ path, authorization: req.headers.authorization, body });
    if (fake.mode === 'fail') {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'boom' } }));
      return;
    }
    if (path.endsWith('/chat/completions')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'chatcmpl-fake',
          object: 'chat.completion',
          created: 1,
          model: body.model,
          choices: [
            { index: 0, message: { role: 'assistant', content: `chat from ${name}` }, finish_reason: 'stop' },
          ],
          usage: { prompt_tokens: 9, completion_tokens: 3, total_tokens: 12 },
        }),
      );
      return;
    }
    if (body.stream !== true) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(responseObject(name, body, 'completed', text)));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    if (fake.mode === 'drop') {
      res.flushHeaders();
      setTimeout(() => res.destroy(), 50);
      return;
    }
    open.add(res);
    let sequence = 0;
    const send = (type: string, fields: Record<string, unknown>) =>
      res.write(
        `event: ${type}\ndata: ${JSON.stringify({ type, ...fields, sequence_number: sequence++ })}\n\n`,
      );
    const item = {
      id: `msg_${name}`,
      type: 'message',
      status: 'in_progress',
      role: 'assistant',
      content: [],
    };
    const at = { item_id: item.id, output_index: 0, content_index: 0 };
    send('response.created', { response: responseObject(name, body, 'in_progress', null) });
    send('response.in_progress', { response: responseObject(name, body, 'in_progress', null) });
    send('response.output_item.added', { output_index: 0, item });
    send('response.content_part.added', { ...at, part: { type: 'output_text', text: '', annotations: [] } });
    send('response.output_text.delta', { ...at, delta: 'relayed ', logprobs: [] });
    if (fake.mode === 'break') {
      // Once what was written has left (a destroy at once could drop it: then nothing was sent at all).
      res.write(': flushed\n\n', () => setTimeout(() => res.destroy(), 50));
      return;
    }
    if (fake.mode === 'fail-in-stream') {
      const error = { code: 'server_error', message: 'The model crashed.' };
      send('error', { ...error, param: null });
      send('response.failed', { response: { ...responseObject(name, body, 'failed', null), error } });
      open.delete(res);
      res.end();
      return;
    }
    if (fake.mode === 'drip') {
      const timer = setInterval(
        () => send('response.output_text.delta', { ...at, delta: 'more ', logprobs: [] }),
        20,
      );
      res.on('close', () => clearInterval(timer));
      return;
    }
    send('response.output_text.delta', { ...at, delta: `by ${name}`, logprobs: [] });
    send('response.output_text.done', { ...at, text, logprobs: [] });
    const part = { type: 'output_text', text, annotations: [], logprobs: [] };
    send('response.content_part.done', { ...at, part });
    send('response.output_item.done', {
      output_index: 0,
      item: { ...item, status: 'completed', content: [part] },
    });
    send('response.completed', { response: responseObject(name, body, 'completed', text) });
    open.delete(res);
    res.end();
  }

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  (fake as { url: string }).url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return fake;
}
