import { sql } from 'drizzle-orm';
import { bigint, check, date, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { apiKeys } from './api-keys';

/**
 * A key's token budget in one period (a UTC day, ISO week or month, by the key's `budget_period`), kept like
 * `allowance_periods`: `reserved` holds the worst case of the key's live calls in flight, and a reservation is
 * admitted only while used + reserved + n ≤ the key's budget, in the same transaction as the account's.
 */
export const keyBudgetPeriods = pgTable(
  'key_budget_periods',
  {
    keyId: text('key_id')
      .notNull()
      .references(() => apiKeys.id, { onDelete: 'cascade' }),
    period: text('period', { enum: ['day', 'week', 'month'] }).notNull(),
    /** First day of the period, UTC. */
    periodStart: date('period_start', { mode: 'string' }).notNull(),
    used: bigint('used', { mode: 'number' }).notNull().default(0),
    reserved: bigint('reserved', { mode: 'number' }).notNull().default(0),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.keyId, t.period, t.periodStart] }),
    check('key_budget_periods_nonnegative', sql`${t.used} >= 0 and ${t.reserved} >= 0`),
  ],
);
export type KeyBudgetPeriodRow = typeof keyBudgetPeriods.$inferSelect;
