/**
 * Spend in money: each metered model call gets its cost from the catalogue's price table when it is metered, the
 * events and rollups keep it, and GraphQL sums it, through the real server and the openai SDK.
 */
import { count, eq } from 'drizzle-orm';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usageEvents } from '../../src/db/schema';
import { catalogueEntry, writeCatalogue } from '../helpers/chat-setup';
import { type FakeUpstream, startFakeOpenAi } from '../helpers/fake-upstreams';
import { createAccountWithKey } from '../helpers/fixtures';
import { gql, sessionCookie, settleUsage } from '../helpers/graphql';
import { startTestServer, type TestServer } from '../helpers/server';

const PRICE = { input: 2.5, output: 10 };

let upstream: FakeUpstream;
let server: TestServer;
let key: string;
let accountId: string;

beforeAll(async () => {
  upstream = await startFakeOpenAi({ slowMs: 400, dripMs: 30 });
  const file = writeCatalogue(
    [
      catalogueEntry('priced', 'openai', 'ok', {
        pricing: [
          // A price that ended before today: usage now is priced at the newer one.
          { from: '2020-01-01', input: 100, output: 100 },
          { from: '2021-01-01', ...PRICE },
        ],
      }),
      catalogueEntry('unpriced', 'openai', 'ok'),
      {
        id: 'embed-priced',
        type: 'embedding',
        provider: 'openai',
        upstream_model: 'ok',
        context_window: 8192,
        dimensions: 16,
        description: 'fake embeddings',
        created: 1767225600,
        pricing: [{ from: '2021-01-01', input: 0.02, output: 0 }],
      },
    ],
    { currency: 'EUR' },
  );
  server = await startTestServer({
    env: { MODELS_FILE: file, OPENAI_BASE_URL: `${upstream.url}/v1`, OPENAI_API_KEY: 'sk-upstream-cost' },
  });
  const created = await createAccountWithKey(server, { plan: 'pro', kind: 'live' });
  key = created.key.key;
  accountId = created.account.id;
});

afterAll(async () => {
  await server?.close();
  await upstream?.close();
});

const messages = [{ role: 'user' as const, content: 'Say hello' }];

describe('cost of usage', () => {
  it('prices each call when it is metered, keeps it per request and sums it in GraphQL', async () => {
    const client = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const calls: { id: string | null; usage: OpenAI.CompletionUsage | undefined; priced: boolean }[] = [];
    for (const model of ['priced', 'priced', 'unpriced']) {
      const { data, response } = await client.chat.completions.create({ model, messages }).withResponse();
      calls.push({ id: response.headers.get('x-request-id'), usage: data.usage, priced: model === 'priced' });
    }
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'priced', messages, stream: true, stream_options: { include_usage: true } })
      .withResponse();
    let streamed: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) streamed = chunk.usage ?? streamed;
    calls.push({ id: response.headers.get('x-request-id'), usage: streamed, priced: true });
    // An embedding bills its input at the model's input price.
    const embedded = await client.embeddings
      .create({ model: 'embed-priced', input: ['one text to embed', 'and another'] })
      .withResponse();
    const embedTokens = embedded.data.usage.prompt_tokens;
    expect(embedTokens).toBeGreaterThan(0);

    const rows = async () =>
      Number(
        (
          await server.services.ctx.db
            .select({ n: count() })
            .from(usageEvents)
            .where(eq(usageEvents.accountId, accountId))
        )[0]?.n ?? 0,
      );
    await settleUsage(server, rows, calls.length + 1);
    const events = await server.services.ctx.db
      .select()
      .from(usageEvents)
      .where(eq(usageEvents.accountId, accountId));
    let total = 0;
    for (const call of calls) {
      const event = events.find((e) => e.requestId === call.id);
      expect(call.usage?.completion_tokens).toBeGreaterThan(0);
      const expected = call.priced
        ? Math.round(
            (call.usage?.prompt_tokens ?? 0) * PRICE.input +
              (call.usage?.completion_tokens ?? 0) * PRICE.output,
          )
        : null;
      expect(event?.costMicros, `${call.id}`).toBe(expected);
      total += expected ?? 0;
    }
    expect(total).toBeGreaterThan(0);
    const embedding = events.find((e) => e.requestId === embedded.response.headers.get('x-request-id'));
    expect(embedding?.costMicros).toBe(Math.round(embedTokens * 0.02));
    total += Math.round(embedTokens * 0.02);

    const cookie = await sessionCookie(server, accountId);
    const r = await gql<{
      usage: {
        summary: { totalCostMicros: number; currency: string };
        timeseries: { costMicros: number }[];
        endpoints: { path: string; costMicros: number | null }[];
      };
    }>(
      server,
      { cookie },
      `query { usage(period: LAST_24H) {
        summary { totalCostMicros currency }
        timeseries { costMicros }
        endpoints { path costMicros }
      } }`,
    );
    expect(r.errors).toBeUndefined();
    const usage = r.data?.usage;
    expect(usage?.summary).toEqual({ totalCostMicros: total, currency: 'EUR' });
    expect(usage?.timeseries.reduce((n, p) => n + p.costMicros, 0)).toBe(total);
    expect(usage?.endpoints.find((e) => e.path === '/v1/embeddings')?.costMicros).toBe(
      Math.round(embedTokens * 0.02),
    );
    expect(usage?.endpoints.find((e) => e.path === '/v1/chat/completions')?.costMicros).toBe(
      total - Math.round(embedTokens * 0.02),
    );
  });
});
