/**
 * Where a query class's time goes, on a database kept by throughput-latency.ts (`--keep=NAME`):
 * each query's path (full scoring, phrase, top-k and its rounds, fallback) and the time of each
 * statement, without HTTP, so a change to the query path can be judged per statement.
 *   cd server && npx tsx ../bench/search/profile.ts --db=NAME [--only=question,paragraph] [--queries=50]
 * With `--shapes` the database is one kept by shapes.ts and its query shapes run (`--limit=100`).
 */

import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { openDatabase } from '../../server/src/db/client';
import { searchDocuments } from '../../server/src/modules/search';
import { percentile } from './metrics';
import { queryClasses } from './query-classes';
import { shapes } from './shapes-corpus';

const flag = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const name = flag('db') ?? 'k100';
const perClass = Number(flag('queries') ?? 50);
const only = flag('only')?.split(',');
const shapeRun = process.argv.includes('--shapes');
const collection = shapeRun ? 'shapes' : 'bench';
const limit = Number(flag('limit') ?? 10);
const base = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const url = `${base.slice(0, base.lastIndexOf('/'))}/${name}`;
const database = openDatabase({ url, maxConnections: 2 });

const [accountId, docCount] = execFileSync(
  'psql',
  [
    url,
    '-AtF,',
    '-c',
    `select account_id, doc_count from search_collections where name = '${collection}' order by doc_count desc limit 1`,
  ],
  { encoding: 'utf8' },
)
  .trim()
  .split(',');
const owner = accountId ? { account_id: accountId, doc_count: Number(docCount) } : undefined;
if (!owner) throw new Error(`no collection '${collection}' in ${name}`);
const total = owner.doc_count;

const classes: [string, () => Record<string, unknown>][] = shapeRun
  ? shapes().map((s) => {
      let i = 0;
      return [s.label, () => s.make(i++).request];
    })
  : queryClasses(total);
type SearchInput = Parameters<typeof searchDocuments>[0]['input'];

/** Times every statement a search runs (the transaction's `execute`). */
let statements: number[] = [];
/** `--explain`: the server log gets each statement's plan with timings (auto_explain). */
const explain = process.argv.includes('--explain');
/** `--dump=FILE`: the statements of the last query, as JSON (text and parameters), for EXPLAIN by hand. */
const dump = flag('dump');
let dumped: { text: string; params: unknown[] }[] = [];
const AUTO_EXPLAIN = [
  "load 'auto_explain'",
  'set local auto_explain.log_min_duration = 0',
  'set local auto_explain.log_analyze = on',
  'set local auto_explain.log_buffers = on',
];
const timedDb = new Proxy(database.db, {
  get(target, prop, receiver) {
    if (prop !== 'transaction') return Reflect.get(target, prop, receiver);
    return (run: (tx: unknown) => Promise<unknown>) =>
      target.transaction(async (tx) => {
        let configured = !explain;
        return run(
          new Proxy(tx, {
            get(t, p, r) {
              if (p !== 'execute') return Reflect.get(t, p, r);
              return async (query: unknown) => {
                if (dump !== undefined) {
                  const { sql: text, params } = (
                    t as unknown as {
                      dialect: { sqlToQuery(q: unknown): { sql: string; params: unknown[] } };
                    }
                  ).dialect.sqlToQuery(query);
                  dumped.push({ text, params });
                }
                const t0 = performance.now();
                try {
                  return await (t.execute as (q: unknown) => Promise<unknown>)(query);
                } finally {
                  statements.push(performance.now() - t0);
                  // After the first statement (the isolation level must come first).
                  if (!configured) {
                    configured = true;
                    for (const setting of AUTO_EXPLAIN) await tx.execute(setting);
                  }
                }
              };
            },
          }),
        );
      });
  },
});

for (const [label, make] of classes) {
  if (only && !only.some((o) => label.startsWith(o))) continue;
  const times: number[] = [];
  const paths = new Map<string, number>();
  const perStatement: number[][] = [];
  for (let i = 0; i < perClass + 5; i++) {
    statements = [];
    dumped = [];
    let path = '';
    const t0 = performance.now();
    await searchDocuments({
      ctx: { db: timedDb },
      accountId: owner.account_id,
      input: { collection, limit, mode: 'keyword', operator: 'or', ...make() } as SearchInput,
      options: {
        // As the server runs it (its budget savepoints on the transaction, so every statement is timed).
        database: 'postgres',
        onStrategy: (s) => {
          path += `${path ? '+' : ''}${s.kind}${'rounds' in s ? s.rounds : ''}`;
        },
      },
    });
    if (i < 5) continue;
    times.push(performance.now() - t0);
    paths.set(path, (paths.get(path) ?? 0) + 1);
    statements.forEach((ms, k) => {
      perStatement[k] ??= [];
      perStatement[k]?.push(ms);
    });
  }
  times.sort((a, b) => a - b);
  console.log(
    `${label.padEnd(16)} p50 ${percentile(times, 50).toFixed(1)} p95 ${percentile(times, 95).toFixed(1)} ms; paths ${[...paths].map(([p, n]) => `${p}×${n}`).join(' ')}`,
  );
  perStatement.forEach((list, k) => {
    list.sort((a, b) => a - b);
    console.log(
      `   statement ${k + 1}: n=${list.length} p50 ${percentile(list, 50).toFixed(1)} p95 ${percentile(list, 95).toFixed(1)} ms`,
    );
  });
}
if (dump) writeFileSync(dump, JSON.stringify(dumped, null, 1));
await database.close();
