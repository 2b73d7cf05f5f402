/**
 * The real server for the search benchmarks, on a fresh database that is dropped afterwards:
 * PostgreSQL at TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres), or
 * in-memory PGlite with `--pglite`; `--sql` turns the in-memory index of small collections off.
 */
import { execFileSync } from 'node:child_process';
import { createAccountWithKey, createKey } from '../../server/test/helpers/fixtures';
import { startTestServer, type TestServer } from '../../server/test/helpers/server';

export interface Bench {
  server: TestServer;
  key: string;
  accountId: string;
  /** Documents the collection already held (a database kept with `--keep=` by an earlier run), else 0. */
  existing: number;
  post(path: string, body: unknown): Promise<unknown>;
  /** Refreshes planner statistics and the visibility map after a bulk load, as autovacuum would shortly after. */
  analyze(): void;
  /** Total size in bytes (table, TOAST, indexes) of each of these tables that exists; `full`: after VACUUM FULL. */
  sizes(tables: string[], full?: boolean): Promise<Record<string, number>>;
  close(): Promise<void>;
}

export async function startBench(collection?: string): Promise<Bench> {
  if (process.argv.includes('--pglite')) {
    delete process.env.TEST_DATABASE_URL;
    delete process.env.DATABASE_URL;
  } else {
    process.env.TEST_DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
    // --keep=NAME: the database NAME is kept after the run (and reused by the next one with the same name).
    const keep = process.argv.find((a) => a.startsWith('--keep='))?.split('=')[1];
    if (keep) process.env.TEST_DATABASE_KEEP = keep;
  }
  const server = await startTestServer({
    env: {
      PLAN_FREE_RPM: '10000000',
      BODY_LIMIT_BYTES: String(20 * 1024 * 1024),
      SEARCH_MAX_BATCH_DOCUMENTS: '1000',
      SEARCH_MAX_DOCUMENT_BYTES: '500000',
      // `--sql`: small collections searched by SQL too, not from memory (memory.ts), to compare the paths.
      ...(process.argv.includes('--sql') && { SEARCH_MEMORY_MAX_DOCUMENTS: '0' }),
    },
  });
  // A kept database: the account that owns the loaded collection gets a new key.
  const found =
    collection === undefined || !server.databaseUrl || !process.env.TEST_DATABASE_KEEP
      ? ''
      : execFileSync('psql', [server.databaseUrl, '-AtF,', '-v', `name=${collection}`], {
          encoding: 'utf8',
          // From stdin: psql substitutes :'name' (quoted) there, not in -c.
          input:
            "select account_id, doc_count from search_collections where name = :'name' order by doc_count desc limit 1",
        }).trim();
  const owner =
    found === '' ? undefined : { account_id: found.split(',')[0] ?? '', n: Number(found.split(',')[1]) };
  const { account, key } = owner
    ? { account: { id: owner.account_id }, key: await createKey(server, owner.account_id) }
    : await createAccountWithKey(server);
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as unknown;
    if (!res.ok) throw new Error(`${path} → ${res.status} ${JSON.stringify(json).slice(0, 300)}`);
    return json;
  };
  const analyze = () => {
    if (server.databaseUrl)
      // VACUUM too: insert-triggered autovacuum (PostgreSQL 13+) would set the visibility map shortly
      // after a bulk load, which index-only scans of search_postings rely on; autovacuum is off on the
      // benchmark machine, so the benchmark does it.
      execFileSync('psql', [server.databaseUrl, '-qc', 'vacuum analyze'], { stdio: 'inherit' });
  };
  const sizes = async (tables: string[], full = false) => {
    const out: Record<string, number> = {};
    if (!server.databaseUrl) return out;
    for (const table of tables) {
      if (full) {
        const exists = execFileSync(
          'psql',
          [server.databaseUrl, '-Atc', `select to_regclass('${table}') is not null`],
          {
            encoding: 'utf8',
          },
        ).trim();
        if (exists === 't') execFileSync('psql', [server.databaseUrl, '-qc', `vacuum full ${table}`]);
      }
      const bytes = execFileSync(
        'psql',
        [server.databaseUrl, '-Atc', `select pg_total_relation_size(to_regclass('${table}'))`],
        { encoding: 'utf8' },
      ).trim();
      if (bytes !== '') out[table] = Number(bytes);
    }
    return out;
  };
  return {
    server,
    key: key.key,
    accountId: account.id,
    existing: owner?.n ?? 0,
    post,
    analyze,
    sizes,
    close: () => server.close(),
  };
}

export const database = () => (process.argv.includes('--pglite') ? 'PGlite (in memory)' : 'PostgreSQL');
