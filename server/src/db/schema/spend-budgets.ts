import { sql } from 'drizzle-orm';
import { bigint, check, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { timestamps } from './columns';

/**
 * A budget in money: at most `amount_micros` (micro-units of the catalogue's currency) per UTC day, ISO week or
 * month, for the organisation (`scope` account, `subject_id` the account's id), one API key, or one member
 * (every live key the member owns). Live calls only, like the token allowance. Spend is kept in `spend_periods`.
 */
export const spendBudgets = pgTable(
  'spend_budgets',
  {
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    scope: text('scope', { enum: ['account', 'key', 'member'] }).notNull(),
    subjectId: text('subject_id').notNull(),
    amountMicros: bigint('amount_micros', { mode: 'number' }).notNull(),
    period: text('period', { enum: ['day', 'week', 'month'] }).notNull(),
    ...timestamps,
  },
  (t) => [
    primaryKey({ columns: [t.accountId, t.scope, t.subjectId] }),
    check('spend_budgets_amount_positive', sql`${t.amountMicros} > 0`),
  ],
);
export type SpendBudgetRow = typeof spendBudgets.$inferSelect;
