/**
 * Seeds usage events and their rollups into a fresh Postgres database `tessera_bench_analytics`, entirely in
 * SQL (generate_series), then rebuilds the rollups from the events exactly as the writer would have.
 * Usage: cd server && npx tsx ../bench/analytics/seed.ts [events=10000000] [postgres://admin-url]
 */
import { createRequire } from 'node:module';
import { openDatabase } from '../../server/src/db/client';

// bench/ has no package of its own: take postgres.js from the server's dependencies.
type Postgres = typeof import('../../server/node_modules/postgres');
const postgres = createRequire(new URL('../../server/package.json', import.meta.url))('postgres') as Postgres;

export const BENCH_DB = 'tessera_bench_analytics';
export const HEAVY_ACCOUNT = 'acc_bench_heavy';

export function benchUrl(adminUrl: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${BENCH_DB}`;
  return url.toString();
}

async function main(): Promise<void> {
  const total = Number(process.argv[2] ?? 10_000_000);
  const adminUrl = process.argv[3] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists ${BENCH_DB} with (force)`);
  await admin.unsafe(`create database ${BENCH_DB}`);
  await admin.end();
  const database = openDatabase({ url: benchUrl(adminUrl), maxConnections: 2 });
  await database.migrate();
  await database.close();

  const sql = postgres(benchUrl(adminUrl), { max: 1, onnotice: () => {} });
  await sql.unsafe("set time zone 'UTC'");
  const t0 = Date.now();
  const lap = (what: string) => console.log(`${what}: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  // 100 accounts with 3 keys each; one "heavy" account receives 10 % of all traffic (the dashboard's worst case).
  await sql.unsafe(`
    insert into accounts (id, email, password_hash, plan)
    select case when a = 0 then '${HEAVY_ACCOUNT}' else 'acc_bench_' || a end, 'bench' || a || '@example.com', 'x', 'pro'
    from generate_series(0, 99) a`);
  await sql.unsafe(`
    insert into api_keys (id, account_id, name, kind, key_hash, last4)
    select 'key_bench_' || a || '_' || k, case when a = 0 then '${HEAVY_ACCOUNT}' else 'acc_bench_' || a end,
           'bench', case when k = 0 then 'live' else 'test' end, md5(a || ':' || k), lpad((a * 3 + k)::text, 4, '0')
    from generate_series(0, 99) a, generate_series(0, 2) k`);
  await sql.unsafe('alter table usage_events set (autovacuum_enabled = false)');
  // Events over the last 30 days, in slices so that progress shows and memory stays flat.
  const slice = 1_000_000;
  for (let start = 0; start < total; start += slice) {
    const n = Math.min(slice, total - start);
    await sql.unsafe(`
      insert into usage_events (occurred_at, request_id, account_id, key_id, mode, method, route, status,
                                latency_ms, model, prompt_tokens, completion_tokens, error_type, error_code, error_message)
      select at, 'req_bench_' || i, acct, 'key_bench_' || a || '_' || k, case when k = 0 then 'live' else 'test' end,
             case when r < 2 then 'POST' else 'GET' end,
             (array['/v1/chat/completions','/api/code/analyze','/v1/models','/v1/models/:id'])[r + 1],
             st, lat, case when r = 0 then 'tessera-fast-4k' end,
             case when r = 0 and st = 200 then 20 + (i % 400) end, case when r = 0 and st = 200 then 50 + (i % 700) end,
             case when st >= 400 then 'invalid_request_error' end,
             case when st >= 400 then 'code_' || st end,
             case when st >= 400 then 'Seeded error with status ' || st end
      from (
        select i,
               now() - (random() * interval '30 days') as at,
               case when i % 10 = 0 then 0 else 1 + (i % 99) end as a,
               (i / 10) % 3 as k,
               (i / 7) % 4 as r,
               (array[200,200,200,200,200,200,200,200,200,200,200,200,200,200,200,200,200,400,404,429,500,200,200,200,200,200,200,200,200,200,200,401,200])[1 + (i % 33)] as st,
               (random() * random() * 2000)::real as lat
        from generate_series(${start + 1}, ${start + n}) i
      ) s, lateral (select case when a = 0 then '${HEAVY_ACCOUNT}' else 'acc_bench_' || a end as acct) x`);
    lap(`events ${start + n}`);
  }
  // Rollups from the events: the same bucketing, status classes and histogram bounds as modules/usage.
  const bounds = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000];
  const histogram = [
    ...bounds.map(
      (b, i) =>
        `count(*) filter (where latency_ms > ${i === 0 ? -1 : bounds[i - 1]} and latency_ms <= ${b})::int`,
    ),
    `count(*) filter (where latency_ms > ${bounds.at(-1)})::int`,
  ].join(', ');
  for (const [granularity, since] of [
    ['day', "interval '31 days'"],
    ['hour', "interval '31 days'"],
    ['minute', "interval '3 days'"],
  ] as const) {
    await sql.unsafe(`
      insert into usage_rollups
      select account_id, '${granularity}', date_trunc('${granularity}', occurred_at), mode, key_id, method, route,
             case when status = 499 then 'aborted' when status = 429 then '429' else (status / 100) || 'xx' end,
             count(*)::int, count(*) filter (where status >= 400)::int, sum(latency_ms),
             array[${histogram}],
             count(*) filter (where prompt_tokens is not null or completion_tokens is not null)::int,
             coalesce(sum(prompt_tokens), 0), coalesce(sum(completion_tokens), 0)
      from usage_events where occurred_at >= now() - ${since}
      group by 1, 2, 3, 4, 5, 6, 7, 8`);
    lap(`${granularity} rollups`);
  }
  await sql.unsafe('alter table usage_events reset (autovacuum_enabled)');
  await sql.unsafe('vacuum analyze usage_events');
  await sql.unsafe('vacuum analyze usage_rollups');
  const [counts] =
    await sql`select (select count(*) from usage_events) as events, (select count(*) from usage_rollups) as rollups`;
  lap(`analyzed; ${counts?.events} events, ${counts?.rollups} rollup rows`);
  await sql.end();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
