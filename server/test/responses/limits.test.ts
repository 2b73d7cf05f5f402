/**
 * POST /v1/responses is held to chat's limits: a key's money budget (reserved before the call, settled to its
 * cost), the account's requests per minute, and a stream the client leaves is metered for what it sent.
 */
import { and, eq } from 'drizzle-orm';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usageEvents } from '../../src/db/schema';
import { costOf, liveKey, MAX_TOKENS, MODEL, periodRows, pricedCatalogue } from '../budgets/helpers';
import { createAccountWithKey } from '../helpers/fixtures';
import { settleUsage } from '../helpers/graphql';
import { startTestServer, type TestServer } from '../helpers/server';
import { signUpOwner } from '../helpers/teams';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({
    env: { MODELS_FILE: pricedCatalogue(), SIMULATOR_TOKEN_DELAY_MS: '20', PLAN_FREE_RPM: '3' },
  });
}, 60_000);
afterAll(async () => {
  await server?.close();
});

function respond(key: string, body: Record<string, unknown> = {}): Promise<Response> {
  return fetch(`${server.url}/v1/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: MODEL,
      input: 'Tell me about rivers',
      max_output_tokens: MAX_TOKENS,
      ...body,
    }),
  });
}

describe('POST /v1/responses under chat’s limits', () => {
  it("a key's spend budget: settled to each response's cost, then 429 spend_budget_exceeded", async () => {
    const owner = await signUpOwner(server);
    const key = await liveKey(owner);
    // One call's worst case is about 960 micro-units (the prompt at 10, 40 tokens at 20): 1,500 admits one.
    const set = await owner.client.mutation('budgets.set', {
      scope: 'key',
      subjectId: key.id,
      budget: { amountMicros: 1_500, period: 'day' },
    });
    expect(set.status).toBe(200);
    const first = await respond(key.key);
    expect(first.status).toBe(200);
    const usage = ((await first.json()) as { usage: { input_tokens: number; output_tokens: number } }).usage;
    const [row] = await periodRows(server, owner.accountId, 'key');
    expect(row).toMatchObject({
      usedMicros: costOf({ prompt_tokens: usage.input_tokens, completion_tokens: usage.output_tokens }),
      reservedMicros: 0,
    });
    const sdk = new OpenAI({ apiKey: key.key, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const refused = await sdk.responses
      .create({ model: MODEL, input: 'Tell me about rivers', max_output_tokens: MAX_TOKENS })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
    expect(refused).toMatchObject({ status: 429, code: 'spend_budget_exceeded' });
  });

  it("the account's requests per minute, shared with chat completions, with OpenAI's headers", async () => {
    const { key } = await createAccountWithKey(server);
    const chat = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], max_tokens: 16 }),
    });
    expect(chat.status).toBe(200);
    const ok = await respond(key.key, { max_output_tokens: 16 });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-ratelimit-limit-requests')).toBe('3');
    expect(ok.headers.get('x-ratelimit-remaining-requests')).toBe('1');
    await respond(key.key, { max_output_tokens: 16 });
    const limited = await respond(key.key, { max_output_tokens: 16 });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBeTruthy();
    expect(((await limited.json()) as { error: { code: string } }).error.code).toBe('rate_limit_exceeded');
  });

  it('a stream the client leaves is metered as 499 with the tokens it sent', async () => {
    const { account, key } = await createAccountWithKey(server);
    const res = await respond(key.key, {
      stream: true,
      max_output_tokens: 2_000,
      input: 'Write about the sea',
    });
    expect(res.status).toBe(200);
    const reader = res.body?.getReader();
    if (!reader) throw new Error('no body');
    let text = '';
    while (!text.includes('response.output_text.delta')) {
      const { value } = await reader.read();
      text += new TextDecoder().decode(value);
    }
    await reader.cancel();
    const rows = () =>
      server.services.ctx.db
        .select()
        .from(usageEvents)
        .where(and(eq(usageEvents.accountId, account.id), eq(usageEvents.route, '/v1/responses')));
    await settleUsage(server, async () => (await rows()).length, 1);
    const [event] = await rows();
    expect(event?.status).toBe(499);
    expect(event?.completionTokens).toBeGreaterThan(0);
    expect(event?.completionTokens).toBeLessThan(2_000);
  });
});
