import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeCatalogue } from '../helpers/chat-setup';
import { type FakeUpstream, startFakeOpenAi } from '../helpers/fake-upstreams';
import { createAccountWithKey } from '../helpers/fixtures';
import { compileOpenAiSchemas, expectConforms as conforms } from '../helpers/openai-schemas';
import { startTestServer, type TestServer } from '../helpers/server';

let validators: ReturnType<typeof compileOpenAiSchemas>;
let server: TestServer;
let upstream: FakeUpstream;
let testKey: string;
let liveKey: string;

function expectConforms(schema: string, data: unknown): void {
  conforms(validators, schema, data);
}

function embeddingModel(id: string, provider: string, upstreamModel: string, dimensions: number) {
  return {
    id,
    type: 'embedding',
    provider,
    upstream_model: upstreamModel,
    context_window: 8192,
    dimensions,
    accepts_dimensions: true,
    description: id,
    created: 1767225600,
  };
}

beforeAll(async () => {
  validators = compileOpenAiSchemas([
    'CreateEmbeddingRequest',
    'CreateEmbeddingResponse',
    'ListModelsResponse',
    'Model',
    'ErrorResponse',
  ]);
  upstream = await startFakeOpenAi();
  server = await startTestServer({
    env: {
      MODELS_FILE: writeCatalogue([
        embeddingModel('embed-up', 'openai', 'ok', 16),
        embeddingModel('embed-floats', 'openai', 'floats', 16),
        embeddingModel('embed-500', 'openai', 'fail500', 16),
        embeddingModel('embed-sim', 'simulator', 'sim', 64),
        {
          id: 'chat-up',
          provider: 'openai',
          upstream_model: 'ok',
          context_window: 8192,
          max_output_tokens: 1024,
          description: 'chat',
          created: 1767225600,
        },
      ]),
      OPENAI_BASE_URL: `${upstream.url}/v1`,
      PLAN_PRO_RPM: '100000',
      UPSTREAM_RETRY_BACKOFF_MS: '10',
    },
  });
  testKey = (await createAccountWithKey(server, { plan: 'pro' })).key.key;
  liveKey = (await createAccountWithKey(server, { plan: 'pro', kind: 'live' })).key.key;
}, 60_000);
afterAll(async () => {
  await server?.close();
  await upstream?.close();
});

async function post(body: unknown, key = testKey): Promise<Response> {
  return fetch(`${server.url}/v1/embeddings`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** Every shape of `input`, with and without the optional fields. */
const REQUESTS = [
  { input: 'The quick brown fox' },
  { input: ['first', 'second'], encoding_format: 'float' },
  { input: [1212, 318, 257], dimensions: 8 },
  { input: [[1212, 318], [257]], user: 'user-1234' },
];

/** Fields sent as null, as clients that fill every field send them: not relayed (CreateEmbeddingRequest refuses null). */
const NULLS = { input: 'nulls', dimensions: null, encoding_format: null, user: null };

/**
 * OpenAI's schema describes `embedding` as floats only; with `encoding_format: "base64"` OpenAI sends a string
 * (its SDKs decode it). The base64 answers are checked with their vectors decoded.
 */
function decoded(body: { data: { embedding: unknown }[] }): unknown {
  return {
    ...body,
    data: body.data.map((d) => {
      if (typeof d.embedding !== 'string') return d;
      const bytes = Buffer.from(d.embedding, 'base64');
      return {
        ...d,
        embedding: Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readFloatLE(i * 4)),
      };
    }),
  };
}

describe("embeddings' conformance with OpenAI's OpenAPI document", () => {
  it('the requests used here are valid CreateEmbeddingRequests', () => {
    for (const body of REQUESTS) expectConforms('CreateEmbeddingRequest', { model: 'embed-sim', ...body });
  });

  it('responses: simulated and relayed, every input shape, floats and base64', async () => {
    for (const [model, key] of [
      ['embed-sim', testKey],
      ['embed-up', liveKey],
      ['embed-floats', liveKey],
    ] as const) {
      for (const body of REQUESTS) {
        for (const encoding_format of ['float', 'base64']) {
          const res = await post({ ...body, model, encoding_format }, key);
          expect(res.status, `${model} ${JSON.stringify(body)}`).toBe(200);
          const answer = (await res.json()) as { data: { embedding: unknown }[] };
          if (encoding_format === 'float') expectConforms('CreateEmbeddingResponse', answer);
          else {
            expect(answer.data.every((d) => typeof d.embedding === 'string')).toBe(true);
            expectConforms('CreateEmbeddingResponse', decoded(answer));
          }
        }
      }
    }
  });

  it('what the upstream receives is a valid CreateEmbeddingRequest, with its own model name', async () => {
    upstream.requests.length = 0;
    for (const body of [...REQUESTS, NULLS]) {
      expect((await post({ ...body, model: 'embed-up' }, liveKey)).status).toBe(200);
    }
    const sent = upstream.requests.filter((r) => r.path === '/v1/embeddings');
    for (const request of sent) expectConforms('CreateEmbeddingRequest', request.body);
    expect(sent.map((r) => r.body)).toEqual([
      ...REQUESTS.map((body) => ({ ...body, model: 'ok' })),
      { input: 'nulls', model: 'ok' },
    ]);
  });

  it('the model list and one embedding model', async () => {
    const headers = { authorization: `Bearer ${testKey}` };
    expectConforms('ListModelsResponse', await (await fetch(`${server.url}/v1/models`, { headers })).json());
    expectConforms('Model', await (await fetch(`${server.url}/v1/models/embed-sim`, { headers })).json());
  });

  it('error bodies: validation, unknown model, chat model, limits, auth, upstream failure', async () => {
    const responses = [
      await post({ model: 'embed-sim', input: '' }),
      await post({ model: 'embed-sim' }),
      await post({ model: 'nope', input: 'x' }),
      await post({ model: 'chat-up', input: 'x' }),
      await post({ model: 'embed-sim', input: 'x', dimensions: 65 }),
      await post({ model: 'embed-sim', input: Array(8193).fill(1) }),
      await post({ model: 'embed-sim', input: 'x' }, 'sk_test_invalid'),
      await post({ model: 'embed-500', input: 'x' }, liveKey),
    ];
    for (const res of responses) {
      expect(res.status).toBeGreaterThanOrEqual(400);
      expectConforms('ErrorResponse', await res.json());
    }
  });
});
