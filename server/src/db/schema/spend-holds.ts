import { bigint, boolean, date, index, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * One row per budget period a call in flight holds money in (a call under a key, a member and an organisation
 * budget holds three). Settling deletes them in the statement that moves their money to `used_micros`, which
 * makes a repeated settle a no-op; a call whose process died never settles, and the sweep gives its hold back
 * once `expires_at` has passed.
 */
export const spendHolds = pgTable(
  'spend_holds',
  {
    reservationId: text('reservation_id').notNull(),
    accountId: text('account_id').notNull(),
    scope: text('scope', { enum: ['account', 'key', 'member'] }).notNull(),
    subjectId: text('subject_id').notNull(),
    period: text('period', { enum: ['day', 'week', 'month'] }).notNull(),
    periodStart: date('period_start', { mode: 'string' }).notNull(),
    micros: bigint('micros', { mode: 'number' }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    released: boolean('released').notNull().default(false),
  },
  (t) => [
    primaryKey({ columns: [t.reservationId, t.scope] }),
    index('spend_holds_expires_idx').on(t.expiresAt),
  ],
);
