import { sql } from 'drizzle-orm';
import { bigint, check, date, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';

/**
 * An account's token allowance in one monthly period (UTC calendar month). `reserved` holds the worst
 * case of live calls in flight; a reservation is admitted only while used + reserved + n ≤ the limit,
 * in one conditional statement, so concurrent calls cannot overshoot. The limit itself is not stored:
 * it is the plan's (or custom) value at the time of each reservation.
 */
export const allowancePeriods = pgTable(
  'allowance_periods',
  {
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    /** First day of the month, UTC. */
    periodStart: date('period_start', { mode: 'string' }).notNull(),
    used: bigint('used', { mode: 'number' }).notNull().default(0),
    reserved: bigint('reserved', { mode: 'number' }).notNull().default(0),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.accountId, t.periodStart] }),
    check('allowance_periods_nonnegative', sql`${t.used} >= 0 and ${t.reserved} >= 0`),
  ],
);

export type AllowancePeriodRow = typeof allowancePeriods.$inferSelect;
