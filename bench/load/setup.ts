/** A fresh Postgres database with an enterprise account (custom high limits) and a test key, dropped afterwards. */

import { configFromEnv } from '../../server/src/config';
import { parseEnv } from '../../server/src/env';
import { systemClock } from '../../server/src/lib/clock';
import { createAccount } from '../../server/src/modules/accounts';
import { createKey } from '../../server/src/modules/keys';
import { openTestDatabase } from '../../server/test/helpers/database';

export interface LoadDatabase {
  url: string;
  key: string;
  drop(): Promise<void>;
}

export async function createLoadDatabase(adminUrl: string): Promise<LoadDatabase> {
  // The test helper creates `tessera_t_<random>` on this server and drops it (with force) when closed.
  process.env.TEST_DATABASE_URL = adminUrl;
  const database = await openTestDatabase();
  const { url } = database;
  if (!url) throw new Error('expected a Postgres database');
  try {
    // The servers would migrate too; doing it here first means they start on a ready schema.
    await database.migrate();
    const ctx = {
      db: database.db,
      clock: systemClock,
      config: configFromEnv(parseEnv({ NODE_ENV: 'test' })),
    };
    const account = await createAccount({
      ctx,
      input: {
        email: 'load@tessera.local',
        password: 'steady traffic passphrase 23',
        name: 'Load bench',
        plan: 'enterprise',
        // What `pnpm cli account create --plan enterprise --rpm … --monthly-tokens …` sets: limits never bind here.
        customRequestsPerMinute: 10_000_000,
        customMonthlyTokens: 1_000_000_000,
      },
    });
    const key = await createKey({ ctx, accountId: account.id, input: { name: 'load', kind: 'test' } });
    // The bench keeps this connection (idle) only so that closing it drops the database at the end.
    return { url, key: key.key, drop: () => database.close() };
  } catch (err) {
    await database.close();
    throw err;
  }
}
