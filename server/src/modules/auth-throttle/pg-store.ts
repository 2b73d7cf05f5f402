import { eq, lt } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { authAttempts } from '../../db/schema';
import { type AttemptDecision, type AttemptRule, attemptStep } from './rules';
import type { AttemptStore } from './store';

const PRUNE_EVERY_MS = 60_000;

/**
 * Counters in the `auth_attempts` table: exact across every instance on the database (the row is locked for
 * the step), and on the embedded PGlite for the one instance there is. Expired rows are deleted at most once
 * a minute per instance, after an attempt.
 */
export class PgAttemptStore implements AttemptStore {
  private lastPruneMs = 0;

  constructor(private readonly db: Db) {}

  async take(key: string, rule: AttemptRule, nowMs: number): Promise<AttemptDecision> {
    const decision = await this.db.transaction(async (tx) => {
      await tx
        .insert(authAttempts)
        .values({ key, count: 0, nextAtMs: 0, expiresAtMs: 0 })
        .onConflictDoNothing({ target: authAttempts.key });
      const [row] = await tx.select().from(authAttempts).where(eq(authAttempts.key, key)).for('update');
      const { decision, next } = attemptStep(row, nowMs, rule);
      if (next) await tx.update(authAttempts).set(next).where(eq(authAttempts.key, key));
      return decision;
    });
    this.prune(nowMs);
    return decision;
  }

  async clear(key: string): Promise<void> {
    await this.db.delete(authAttempts).where(eq(authAttempts.key, key));
  }

  private prune(nowMs: number): void {
    if (nowMs - this.lastPruneMs < PRUNE_EVERY_MS) return;
    this.lastPruneMs = nowMs;
    // Best effort: a failed prune is retried a minute later.
    this.db
      .delete(authAttempts)
      .where(lt(authAttempts.expiresAtMs, nowMs))
      .catch(() => {});
  }
}
