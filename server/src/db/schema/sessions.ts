import { index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';

export const sessions = pgTable(
  'sessions',
  {
    id: text('id').primaryKey(),
    /** SHA-256 of the cookie's token; the token itself is never stored. */
    tokenHash: text('token_hash').notNull().unique(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [index('sessions_account_idx').on(t.accountId)],
);

export type SessionRow = typeof sessions.$inferSelect;
