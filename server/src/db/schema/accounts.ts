import { sql } from 'drizzle-orm';
import { bigint, check, index, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { timestamps } from './columns';

export const accounts = pgTable(
  'accounts',
  {
    id: text('id').primaryKey(),
    /** The organisation's contact email (its first owner's at sign-up); sign-in reads `users`, not this. */
    email: text('email').notNull().unique(),
    name: text('name'),
    plan: text('plan', { enum: ['free', 'pro', 'enterprise'] })
      .notNull()
      .default('free'),
    /** Enterprise (or any negotiated) overrides; null means the plan's default. */
    customRequestsPerMinute: integer('custom_requests_per_minute'),
    customMonthlyTokens: bigint('custom_monthly_tokens', { mode: 'number' }),
    ...timestamps,
  },
  (t) => [
    check('accounts_plan_check', sql`${t.plan} in ('free', 'pro', 'enterprise')`),
    // Instances poll for recently changed accounts (plan changes) to refresh their caches.
    index('accounts_updated_idx').on(t.updatedAt),
  ],
);

export type AccountRow = typeof accounts.$inferSelect;
export type NewAccountRow = typeof accounts.$inferInsert;
