import { sql } from 'drizzle-orm';
import { bigint, check, date, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * What one budget's subject spent in one period, kept like `allowance_periods`: `reserved_micros` holds the
 * worst-case cost of the live calls in flight, and a call is admitted only while used + reserved + its worst
 * case ≤ the budget. A new period is a new row, so a budget resets on the calendar boundary on its own.
 * `alerted_percent` is the highest alert threshold already raised this period (each is raised once).
 */
export const spendPeriods = pgTable(
  'spend_periods',
  {
    accountId: text('account_id').notNull(),
    scope: text('scope', { enum: ['account', 'key', 'member'] }).notNull(),
    subjectId: text('subject_id').notNull(),
    period: text('period', { enum: ['day', 'week', 'month'] }).notNull(),
    /** First day of the period, UTC. */
    periodStart: date('period_start', { mode: 'string' }).notNull(),
    usedMicros: bigint('used_micros', { mode: 'number' }).notNull().default(0),
    reservedMicros: bigint('reserved_micros', { mode: 'number' }).notNull().default(0),
    alertedPercent: integer('alerted_percent').notNull().default(0),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.accountId, t.scope, t.subjectId, t.period, t.periodStart] }),
    check('spend_periods_nonnegative', sql`${t.usedMicros} >= 0 and ${t.reservedMicros} >= 0`),
  ],
);
export type SpendPeriodRow = typeof spendPeriods.$inferSelect;
