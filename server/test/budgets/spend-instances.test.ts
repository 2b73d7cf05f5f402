/**
 * Money budgets across instances: a key's and its organisation's budgets, both tight, with two keys calling
 * through three instances at once. The holds are row-locked conditional upserts taken in one lock order, so
 * neither budget is overspent and no call fails on a deadlock.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { setSpendBudget } from '../../src/modules/budgets';
import type { Cluster } from '../helpers/cluster';
import { calls, chat, periodRows, pricedCatalogue, twoKeysOnThreeInstances } from './helpers';

const REDIS_URL = process.env.TEST_REDIS_URL;

describe.skipIf(!REDIS_URL)('money budgets across 3 instances', () => {
  let cluster: Cluster | undefined;
  afterEach(async () => {
    await cluster?.close();
    cluster = undefined;
  });

  it('concurrent calls of two keys never spend more than the key’s or the organisation’s budget', async () => {
    const setup = await twoKeysOnThreeInstances(
      REDIS_URL ?? '',
      { MODELS_FILE: pricedCatalogue(), SIMULATOR_TOKEN_DELAY_MS: '3', PLAN_FREE_RPM: '100000' },
      { key: 6_000, account: 10_000 },
    );
    cluster = setup.cluster;
    const { first, urls, account, a, b } = setup;
    const ctx = first.services.ctx;
    // All at once, the keys taking turns.
    const { counts, cost } = await calls(urls, [a.key, b.key], 60, 60);
    const spent = { a: cost[a.key] ?? 0, b: cost[b.key] ?? 0 };
    expect(counts['200'] ?? 0).toBeGreaterThanOrEqual(2);
    expect((counts['200'] ?? 0) + (counts['429 spend_budget_exceeded'] ?? 0)).toBe(60);
    const [keyRow] = await periodRows(first, account.id, 'key');
    const [accountRow] = await periodRows(first, account.id, 'account');
    expect(keyRow).toMatchObject({ usedMicros: spent.a, reservedMicros: 0 });
    expect(accountRow).toMatchObject({ usedMicros: spent.a + spent.b, reservedMicros: 0 });
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
