/**
 * Money budgets across instances: a key's and its organisation's budgets, both tight, with two keys calling
 * through three instances at once. The holds are row-locked conditional upserts taken in one lock order, so
 * neither budget is overspent and no call fails on a deadlock.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { setSpendBudget } from '../../src/modules/budgets';
import { type Cluster, startCluster } from '../helpers/cluster';
import { createAccount, createKey } from '../helpers/fixtures';
import { chat, costOf, periodRows, pricedCatalogue, type Usage } from './helpers';

const REDIS_URL = process.env.TEST_REDIS_URL;

describe.skipIf(!REDIS_URL)('money budgets across 3 instances', () => {
  let cluster: Cluster | undefined;
  afterEach(async () => {
    await cluster?.close();
    cluster = undefined;
  });

  it('concurrent calls of two keys never spend more than the key’s or the organisation’s budget', async () => {
    cluster = await startCluster(3, REDIS_URL ?? '', undefined, {
      MODELS_FILE: pricedCatalogue(),
      SIMULATOR_TOKEN_DELAY_MS: '3',
      PLAN_FREE_RPM: '100000',
      REDIS_COMMAND_TIMEOUT_MS: '2000',
    });
    const first = cluster.first;
    const urls = cluster.instances.map((i) => i.url);
    const account = await createAccount(first, { plan: 'free' });
    const a = await createKey(first, account.id, 'live', 'a');
    const b = await createKey(first, account.id, 'live', 'b');
    const ctx = first.services.ctx;
    await setSpendBudget({
      ctx,
      accountId: account.id,
      input: { scope: 'key', subjectId: a.id, budget: { amountMicros: 6_000, period: 'month' } },
    });
    await setSpendBudget({
      ctx,
      accountId: account.id,
      input: { scope: 'account', budget: { amountMicros: 10_000, period: 'month' } },
    });
    const counts: Record<string, number> = {};
    const spent: Record<string, number> = { a: 0, b: 0 };
    await Promise.all(
      Array.from({ length: 60 }, async (_, i) => {
        const [name, key] = i % 2 === 0 ? ['a', a.key] : ['b', b.key];
        const res = await chat(urls[i % urls.length] ?? '', key);
        const body = (await res.json()) as { usage?: Usage; error?: { code: string } };
        const label = res.status === 200 ? '200' : `${res.status} ${body.error?.code}`;
        counts[label] = (counts[label] ?? 0) + 1;
        if (body.usage) spent[name] = (spent[name] ?? 0) + costOf(body.usage);
      }),
    );
    expect(counts['200'] ?? 0).toBeGreaterThanOrEqual(2);
    expect((counts['200'] ?? 0) + (counts['429 spend_budget_exceeded'] ?? 0)).toBe(60);
    const [keyRow] = await periodRows(first, account.id, 'key');
    const [accountRow] = await periodRows(first, account.id, 'account');
    expect(keyRow).toMatchObject({ usedMicros: spent.a, reservedMicros: 0 });
    expect(accountRow).toMatchObject({ usedMicros: (spent.a ?? 0) + (spent.b ?? 0), reservedMicros: 0 });
    expect(keyRow?.usedMicros).toBeLessThanOrEqual(6_000);
    expect(accountRow?.usedMicros).toBeLessThanOrEqual(10_000);

    // A budget cleared through one instance stops binding the others once their cached copy (1 s) is
    // refreshed: the first call after that second starts the read, the calls after it see the change.
    await setSpendBudget({ ctx, accountId: account.id, input: { scope: 'account', budget: null } });
    await setSpendBudget({
      ctx,
      accountId: account.id,
      input: { scope: 'key', subjectId: a.id, budget: null },
    });
    const last = urls[2] ?? '';
    await new Promise((r) => setTimeout(r, 1_100));
    await chat(last, b.key);
    await new Promise((r) => setTimeout(r, 300));
    expect((await chat(last, a.key)).status).toBe(200);
    expect((await chat(last, b.key)).status).toBe(200);
  }, 120_000);
});
