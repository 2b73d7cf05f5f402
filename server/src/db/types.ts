import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type * as schema from './schema';

// The database's types, a leaf: client.ts opens one, postgres.ts and app-role.ts implement parts of it.

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
