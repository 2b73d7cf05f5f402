import { bigint, date, index, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/**
 * An alert raised when a budget's spend in a period reached 50, 80 or 100 % of it: once per threshold, budget
 * and period (the unique index holds that across instances), shown on the dashboard and sent to the
 * organisation's webhook.
 */
export const budgetAlerts = pgTable(
  'budget_alerts',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id').notNull(),
    scope: text('scope', { enum: ['account', 'key', 'member'] }).notNull(),
    subjectId: text('subject_id').notNull(),
    period: text('period', { enum: ['day', 'week', 'month'] }).notNull(),
    periodStart: date('period_start', { mode: 'string' }).notNull(),
    thresholdPercent: integer('threshold_percent').notNull(),
    amountMicros: bigint('amount_micros', { mode: 'number' }).notNull(),
    usedMicros: bigint('used_micros', { mode: 'number' }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('budget_alerts_once_idx').on(
      t.accountId,
      t.scope,
      t.subjectId,
      t.period,
      t.periodStart,
      t.thresholdPercent,
    ),
    index('budget_alerts_account_idx').on(t.accountId, t.createdAt),
  ],
);
export type BudgetAlertRow = typeof budgetAlerts.$inferSelect;
