import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { MIGRATIONS_FOLDER, openPostgres } from './postgres';
import * as schema from './schema';

export { MIGRATIONS_FOLDER, reconnectDelaySeconds, SHIPPED_MIGRATIONS } from './postgres';

export type Schema = typeof schema;
/** The database as modules see it: the same API on PGlite and on Postgres. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

export interface Database {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** The connection URL (Postgres only), for a thread that opens connections of its own. */
  url?: string;
  /**
   * The same connections without the request path's statement deadline (postgres.ts), for background work whose
   * statements may legitimately run long (the usage writer's prune); `db` when there is no deadline.
   */
  backgroundDb?: Db;
  migrate(): Promise<void>;
  /** Cheap round trip used by readiness checks. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** postgres:// URL; when absent, PGlite is used. */
  url?: string | undefined;
  /**
   * Postgres only: the tables' owner, which applies the migrations and grants `url`'s role what it needs
   * (app-role.ts); without it `url`'s role migrates.
   */
  ownerUrl?: string | undefined;
  /** PGlite data folder, or `memory://` for a throwaway database. */
  dataDir?: string;
  maxConnections?: number;
  /** Postgres's `application_name` for these connections (how they show in `pg_stat_activity`). */
  applicationName?: string;
  /** Postgres only: how long a connection attempt or a statement may wait for an answer (postgres.ts). */
  timeoutMs?: number;
  /**
   * PGlite only: start from this data directory (a `PGlite.dumpDataDir` tarball) instead of running initdb: the
   * tests open each database from one migrated template, a fraction of initdb's time.
   */
  loadDataDir?: Blob;
}

export function openDatabase(options: DatabaseOptions): Database {
  if (options.url)
    return openPostgres(
      options.url,
      options.maxConnections ?? 10,
      options.applicationName,
      options.timeoutMs,
      options.ownerUrl,
    );
  return openPglite(options.dataDir ?? 'memory://', options.loadDataDir);
}

function openPglite(dataDir: string, loadDataDir: Blob | undefined): Database {
  if (!dataDir.startsWith('memory://')) mkdirSync(dataDir, { recursive: true });
  // pg_trgm backs fuzzy search; the migrations create the extension.
  const client = new PGlite(dataDir, { extensions: { pg_trgm }, ...(loadDataDir && { loadDataDir }) });
  const db = drizzlePglite(client, { schema, casing: 'snake_case' });
  return {
    db,
    kind: 'pglite',
    migrate: () => migratePglite(db, { migrationsFolder: MIGRATIONS_FOLDER }),
    ping: async () => {
      await client.query('select 1');
    },
    close: () => client.close(),
  };
}
