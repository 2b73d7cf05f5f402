/**
 * p50/p95 of each dashboard query (the analytics module's own functions, as GraphQL calls them) against the
 * seeded database, for 24 h, 7 d and 30 d, for the heavy account (10 % of all events) and an ordinary one.
 * Usage: cd server && npx tsx ../bench/analytics/queries.ts [runs=30] [postgres://admin-url]
 */
import { openDatabase } from '../../server/src/db/client';
import {
  type PeriodPreset,
  recentErrors,
  resolvePeriod,
  usageByEndpoint,
  usageSummary,
  usageTimeseries,
} from '../../server/src/modules/analytics';
import { BENCH_DB, benchUrl, HEAVY_ACCOUNT } from './seed';

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? Number.NaN;
}

async function main(): Promise<void> {
  const runs = Number(process.argv[2] ?? 30);
  const adminUrl = process.argv[3] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const database = openDatabase({ url: benchUrl(adminUrl), maxConnections: 4 });
  const ctx = { db: database.db };
  console.log(`database ${BENCH_DB}; ${runs} runs per query after one warm-up`);
  console.log('| account | period | query | p50 ms | p95 ms | rows |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const accountId of [HEAVY_ACCOUNT, 'acc_bench_50']) {
    for (const preset of ['last_24h', 'last_7d', 'last_30d'] as PeriodPreset[]) {
      const period = resolvePeriod({ preset }, Date.now(), 3);
      const scope = { accountId };
      const firstPage = await recentErrors({ ctx, scope, period, first: 20 });
      const cursor = firstPage.errors.at(-1)?.cursor;
      const queries: [string, () => Promise<number>][] = [
        [
          'summary (current + previous)',
          async () => (await usageSummary({ ctx, scope, period })).totalRequests,
        ],
        ['timeseries', async () => (await usageTimeseries({ ctx, scope, period })).points.length],
        ['endpoints', async () => (await usageByEndpoint({ ctx, scope, period })).length],
        [
          'recent errors, page 1',
          async () => (await recentErrors({ ctx, scope, period, first: 20 })).errors.length,
        ],
        [
          'recent errors, page 2 (cursor)',
          async () => (await recentErrors({ ctx, scope, period, first: 20, after: cursor })).errors.length,
        ],
      ];
      for (const [name, run] of queries) {
        let rows = await run();
        const times: number[] = [];
        for (let i = 0; i < runs; i++) {
          const t = performance.now();
          rows = await run();
          times.push(performance.now() - t);
        }
        times.sort((a, b) => a - b);
        const who = accountId === HEAVY_ACCOUNT ? 'heavy (10 %)' : 'ordinary';
        console.log(
          `| ${who} | ${preset} | ${name} | ${percentile(times, 0.5).toFixed(1)} | ${percentile(times, 0.95).toFixed(1)} | ${rows} |`,
        );
      }
    }
  }
  await database.close();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
