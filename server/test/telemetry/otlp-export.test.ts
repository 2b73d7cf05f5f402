/**
 * OpenTelemetry export through the real server: a collector on loopback (node:http taking OTLP/HTTP JSON, as an
 * OpenTelemetry Collector's otlp receiver does) receives one span per request, GenAI attributes on model calls,
 * inside the caller's trace when it sent a `traceparent`.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFakeCatalogue } from '../helpers/chat-setup';
import { type FakeUpstream, startFakeOpenAi } from '../helpers/fake-upstreams';
import { createAccount, createAccountWithKey, createKey } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';

interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: { key: string; value: OtlpValue }[];
  status?: { code?: number };
}
interface Received {
  headers: IncomingHttpHeaders;
  resource: Record<string, string | number | undefined>;
  span: OtlpSpan;
}

function plain(value: OtlpValue): string | number | undefined {
  if (value.intValue !== undefined) return Number(value.intValue);
  return value.stringValue;
}

function attributesOf(span: OtlpSpan): Record<string, string | number | undefined> {
  return Object.fromEntries(span.attributes.map((a) => [a.key, plain(a.value)]));
}

/** A collector: every span posted to /v1/traces, with the headers and resource it came with. */
async function startCollector(): Promise<{ url: string; spans: Received[]; close(): Promise<void> }> {
  const spans: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url !== '/v1/traces' || req.headers['content-type'] !== 'application/json') {
        res.writeHead(415).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans: {
          resource: { attributes: { key: string; value: OtlpValue }[] };
          scopeSpans: { spans: OtlpSpan[] }[];
        }[];
      };
      for (const rs of body.resourceSpans) {
        const resource = Object.fromEntries(rs.resource.attributes.map((a) => [a.key, plain(a.value)]));
        for (const ss of rs.scopeSpans)
          for (const span of ss.spans) spans.push({ headers: req.headers, resource, span });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

let collector: Awaited<ReturnType<typeof startCollector>>;
let upstream: FakeUpstream;
let server: TestServer;
let key: string;

beforeAll(async () => {
  collector = await startCollector();
  upstream = await startFakeOpenAi({ slowMs: 400, dripMs: 30 });
  server = await startTestServer({
    env: {
      MODELS_FILE: writeFakeCatalogue(),
      OPENAI_BASE_URL: `${upstream.url}/v1`,
      OPENAI_API_KEY: 'sk-upstream-secret-otel',
      UPSTREAM_RETRIES: '0',
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20collector-token',
      OTEL_SERVICE_NAME: 'tessera-otel-test',
      OTEL_BSP_SCHEDULE_DELAY: '20',
    },
  });
  key = (await createAccountWithKey(server, { plan: 'pro', kind: 'live' })).key.key;
});

afterAll(async () => {
  await server?.close();
  await upstream?.close();
  await collector?.close();
});

/** The span exported for the request that got `requestId`, once it arrives. */
async function spanFor(requestId: string | null): Promise<Received> {
  expect(requestId).toBeTruthy();
  for (let i = 0; i < 200; i++) {
    const found = collector.spans.find((s) => attributesOf(s.span)['tessera.request_id'] === requestId);
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`no span for request ${requestId}`);
}

function client(headers: Record<string, string> = {}): OpenAI {
  return new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0, defaultHeaders: headers });
}

const messages = [{ role: 'user' as const, content: 'Say hello' }];

describe('OpenTelemetry export', () => {
  it("exports a chat call as a GenAI span inside the caller's trace, with the collector's headers", async () => {
    const traceId = randomBytes(16).toString('hex');
    const parentId = randomBytes(8).toString('hex');
    const before = Date.now();
    const { data, response } = await client({ traceparent: `00-${traceId}-${parentId}-01` })
      .chat.completions.create({ model: 'up-ok', messages })
      .withResponse();
    const { span, headers, resource } = await spanFor(response.headers.get('x-request-id'));
    expect(span.name).toBe('chat up-ok');
    expect(span.kind).toBe(2); // SERVER
    expect(span.traceId).toBe(traceId);
    expect(span.parentSpanId).toBe(parentId);
    expect(attributesOf(span)).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'up-ok',
      'gen_ai.provider.name': response.headers.get('x-tessera-provider'),
      'gen_ai.usage.input_tokens': data.usage?.prompt_tokens,
      'gen_ai.usage.output_tokens': data.usage?.completion_tokens,
      'http.request.method': 'POST',
      'http.route': '/v1/chat/completions',
      'http.response.status_code': 200,
      'tessera.key_mode': 'live',
    });
    expect(attributesOf(span)).not.toHaveProperty('error.type');
    expect(span.status?.code ?? 0).toBe(0);
    const start = Number(BigInt(span.startTimeUnixNano) / 1_000_000n);
    const end = Number(BigInt(span.endTimeUnixNano) / 1_000_000n);
    expect(start).toBeGreaterThanOrEqual(before - 5);
    expect(end).toBeGreaterThanOrEqual(start);
    expect(end).toBeLessThanOrEqual(Date.now() + 5);
    expect(headers.authorization).toBe('Bearer collector-token');
    expect(resource['service.name']).toBe('tessera-otel-test');
    // Nothing of the prompt, the answer or the caller's key travels to the collector.
    const sent = JSON.stringify(span);
    expect(sent).not.toContain('Say hello');
    expect(sent).not.toContain(key);
    expect(sent).not.toContain(data.choices[0]?.message.content ?? '∅');
  });

  it('counts a stream’s tokens once the stream is over, and starts a trace of its own without a traceparent', async () => {
    const { data: stream, response } = await client()
      .chat.completions.create({
        model: 'up-ok',
        messages,
        stream: true,
        stream_options: { include_usage: true },
      })
      .withResponse();
    const id = response.headers.get('x-request-id');
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) usage = chunk.usage ?? usage;
    const { span } = await spanFor(id);
    expect(usage?.completion_tokens).toBeGreaterThan(0);
    expect(attributesOf(span)).toMatchObject({
      'gen_ai.usage.input_tokens': usage?.prompt_tokens,
      'gen_ai.usage.output_tokens': usage?.completion_tokens,
    });
    expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(span.parentSpanId ?? '').toBe('');
  });

  it('marks refusals with error.type and upstream failures as errors', async () => {
    const refused = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'no-such-model', messages }),
    });
    expect(refused.status).toBe(404);
    const notFound = await spanFor(refused.headers.get('x-request-id'));
    expect(attributesOf(notFound.span)).toMatchObject({
      'error.type': 'model_not_found',
      'http.response.status_code': 404,
    });
    // A 4xx is the caller's: the span itself is not an error.
    expect(notFound.span.status?.code ?? 0).toBe(0);

    const failed = await client()
      .chat.completions.create({ model: 'up-500', messages })
      .withResponse()
      .catch((error: unknown) => error as InstanceType<typeof OpenAI.APIError>);
    expect(failed).toBeInstanceOf(OpenAI.APIError);
    const error = failed as InstanceType<typeof OpenAI.APIError>;
    const upstreamFailure = await spanFor(error.headers?.get('x-request-id') ?? null);
    expect(upstreamFailure.span.status?.code).toBe(2); // ERROR
    expect(attributesOf(upstreamFailure.span)['error.type']).toBeTruthy();
    expect(attributesOf(upstreamFailure.span)['gen_ai.provider.name']).toBe(
      error.headers?.get('x-tessera-provider'),
    );
  });

  it('exports requests without a key too, with nothing of an account on them', async () => {
    const anonymous = await fetch(`${server.url}/v1/models`);
    expect(anonymous.status).toBe(401);
    const { span } = await spanFor(anonymous.headers.get('x-request-id'));
    expect(span.name).toBe('GET /v1/models');
    expect(attributesOf(span)).not.toHaveProperty('tessera.account_id');
    expect(attributesOf(span)['error.type']).toBeTruthy();
  });

  it('says whether the response cache answered (tessera.cache), for keys that opted in', async () => {
    const account = await createAccount(server, { plan: 'pro' });
    const cached = await createKey(server, account.id, 'live', 'cached', { cacheTtlSeconds: 60 });
    const sdk = new OpenAI({ apiKey: cached.key, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const ids = [];
    for (let i = 0; i < 2; i++) {
      const { response } = await sdk.chat.completions.create({ model: 'up-ok', messages }).withResponse();
      ids.push(response.headers.get('x-request-id'));
    }
    const [miss, hit] = await Promise.all(ids.map(spanFor));
    expect(attributesOf(miss?.span as OtlpSpan)['tessera.cache']).toBe('miss');
    expect(attributesOf(hit?.span as OtlpSpan)).toMatchObject({
      'tessera.cache': 'hit',
      'gen_ai.usage.input_tokens': 0,
      'gen_ai.usage.output_tokens': 0,
    });
    const plainSpan = collector.spans.find((s) => attributesOf(s.span)['tessera.key_id'] !== undefined);
    expect(attributesOf((plainSpan as Received).span)).not.toHaveProperty('tessera.cache');
  });
});
