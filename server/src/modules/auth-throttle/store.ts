import type { AttemptDecision, AttemptRule } from './rules';

/** Where attempt counters live: Redis (redis-store.ts) when configured, otherwise the database (pg-store.ts). */
export interface AttemptStore {
  /** Counts one attempt against `key` under `rule` at `nowMs`, atomically, and says whether it may go on. */
  take(key: string, rule: AttemptRule, nowMs: number): Promise<AttemptDecision>;
  /** Forgets `key` (a successful sign-in clears its email's backoff). */
  clear(key: string): Promise<void>;
}
