import { and, eq } from 'drizzle-orm';
import { spendPeriods } from '../../src/db/schema';
import { catalogueEntry, writeCatalogue } from '../helpers/chat-setup';
import type { TestServer } from '../helpers/server';
import type { SignedIn } from '../helpers/teams';

/** Per million tokens, so micro-units per token: a call's cost is prompt × 10 + completion × 20. */
export const PRICE = { input: 10, output: 20 };
export const MODEL = 'priced';
export const MAX_TOKENS = 40;
export const EMBEDDING_MODEL = 'embed-priced';

/** A catalogue with one priced chat model; its provider is not configured, so live keys get the simulator. */
export function pricedCatalogue(): string {
  return writeCatalogue([
    catalogueEntry(MODEL, 'openai', 'sim', { pricing: [{ from: '2020-01-01', ...PRICE }] }),
    catalogueEntry('unpriced', 'openai', 'sim'),
    {
      id: EMBEDDING_MODEL,
      type: 'embedding',
      provider: 'openai',
      upstream_model: 'sim-embed',
      context_window: 8192,
      dimensions: 16,
      description: 'priced embeddings',
      created: 1767225600,
      pricing: [{ from: '2020-01-01', input: 100, output: 0 }],
    },
  ]);
}

export function chat(url: string, key: string, body: Record<string, unknown> = {}): Promise<Response> {
  return fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: MODEL,
      messages: [{ role: 'user', content: 'Tell me about rivers' }],
      max_tokens: MAX_TOKENS,
      ...body,
    }),
  });
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
}

export const costOf = (u: Usage) => u.prompt_tokens * PRICE.input + u.completion_tokens * PRICE.output;

/** A live key made through the dashboard's tRPC. */
export async function liveKey(owner: SignedIn, name = 'live'): Promise<{ id: string; key: string }> {
  const res = await owner.client.mutation<{ id: string; key: string }>('keys.create', { name, kind: 'live' });
  if (!res.data) throw new Error(`keys.create failed: ${JSON.stringify(res.error)}`);
  return res.data;
}

export async function periodRows(server: TestServer, accountId: string, scope: 'key' | 'account' | 'member') {
  return server.services.ctx.db
    .select()
    .from(spendPeriods)
    .where(and(eq(spendPeriods.accountId, accountId), eq(spendPeriods.scope, scope)));
}
