import { bigint, index, integer, pgTable, text } from 'drizzle-orm/pg-core';

/**
 * Sign-in and sign-up attempt counters (modules/auth-throttle), shared by every instance on the database when
 * Redis is not configured. Keys are hashes (`signin-email:<sha256>`), never an email or address in clear.
 * Times are milliseconds since the epoch from the instances' clocks.
 */
export const authAttempts = pgTable(
  'auth_attempts',
  {
    key: text('key').primaryKey(),
    /** Failures so far (backoff) or attempts in the window. */
    count: integer('count').notNull(),
    /** Backoff: the earliest time of the next attempt. */
    nextAtMs: bigint('next_at_ms', { mode: 'number' }).notNull(),
    /** When the row is forgotten (the window's end, or the backoff's idle time). */
    expiresAtMs: bigint('expires_at_ms', { mode: 'number' }).notNull(),
  },
  (t) => [index('auth_attempts_expires_idx').on(t.expiresAtMs)],
);

export type AuthAttemptRow = typeof authAttempts.$inferSelect;
