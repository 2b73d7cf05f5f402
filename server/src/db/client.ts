import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { MIGRATIONS_FOLDER, openPostgres } from './postgres';
import * as schema from './schema';
import type { Database, DatabaseOptions } from './types';

export { MIGRATIONS_FOLDER, reconnectDelaySeconds, SHIPPED_MIGRATIONS } from './postgres';

export type { Database, DatabaseOptions, Db, Schema } from './types';

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
