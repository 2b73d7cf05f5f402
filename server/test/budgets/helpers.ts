import { and, eq } from 'drizzle-orm';
import { spendPeriods } from '../../src/db/schema';
import { setSpendBudget } from '../../src/modules/budgets';
import { catalogueEntry, writeCatalogue } from '../helpers/chat-setup';
import { type Cluster, startCluster } from '../helpers/cluster';
import { createAccount, createKey } from '../helpers/fixtures';
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

/** n calls, `parallel` at a time, to the given URLs in turn: status counts and the admitted calls' cost by key. */
export async function calls(urls: string[], keys: string[], n: number, parallel: number) {
  const counts: Record<string, number> = {};
  const cost: Record<string, number> = {};
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < n) {
        const i = next++;
        const key = keys[i % keys.length] ?? '';
        const res = await chat(urls[i % urls.length] ?? '', key);
        const body = (await res.json()) as { usage?: Usage; error?: { code: string } };
        const label = res.status === 200 ? '200' : `${res.status} ${body.error?.code}`;
        counts[label] = (counts[label] ?? 0) + 1;
        if (body.usage) cost[key] = (cost[key] ?? 0) + costOf(body.usage);
      }
    }),
  );
  return { counts, cost };
}

/**
 * Three instances on one database and Redis, and an account with two live keys: `a` held to a budget of its own
 * and both to the organisation's (`budgets`, micro-units a month).
 */
export async function twoKeysOnThreeInstances(
  redisUrl: string,
  env: Record<string, string>,
  budgets: { key: number; account: number },
) {
  const cluster: Cluster = await startCluster(3, redisUrl, undefined, {
    ...env,
    REDIS_COMMAND_TIMEOUT_MS: '2000',
  });
  const first = cluster.first;
  const account = await createAccount(first, { plan: 'free' });
  const a = await createKey(first, account.id, 'live', 'a');
  const b = await createKey(first, account.id, 'live', 'b');
  const ctx = first.services.ctx;
  await setSpendBudget({
    ctx,
    accountId: account.id,
    input: { scope: 'key', subjectId: a.id, budget: { amountMicros: budgets.key, period: 'month' } },
  });
  await setSpendBudget({
    ctx,
    accountId: account.id,
    input: { scope: 'account', budget: { amountMicros: budgets.account, period: 'month' } },
  });
  return { cluster, first, urls: cluster.instances.map((i) => i.url), account, a, b };
}
