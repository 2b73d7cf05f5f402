import { bigint, boolean, date, index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';

/**
 * Tokens held by one live model call, until it settles (the row is deleted and its tokens move from
 * `allowance_periods.reserved` to `used`). A call whose process died never settles: past `expires_at` a sweep
 * gives its tokens back (`released`), so a crash cannot shrink an allowance for the rest of the month.
 */
export const allowanceReservations = pgTable(
  'allowance_reservations',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    periodStart: date('period_start', { mode: 'string' }).notNull(),
    tokens: bigint('tokens', { mode: 'number' }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    /** Swept after expiry: its tokens were given back; a late settle then only adds the usage. */
    released: boolean('released').notNull().default(false),
    /** A call of a key with a token budget: the same tokens are held in that key's budget period too. */
    keyId: text('key_id'),
    keyPeriod: text('key_period', { enum: ['day', 'week', 'month'] }),
    keyPeriodStart: date('key_period_start', { mode: 'string' }),
  },
  (t) => [index('allowance_reservations_expires_idx').on(t.expiresAt)],
);
