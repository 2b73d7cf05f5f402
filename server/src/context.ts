import type { AppConfig } from './config';
import type { Db } from './db/client';
import type { Clock } from './lib/clock';
import type { Logger } from './logger';

/** What every module verb receives: the database (or a transaction), the clock, the logger, the config. */
export interface Ctx {
  db: Db;
  clock: Clock;
  logger: Logger;
  config: AppConfig;
}
