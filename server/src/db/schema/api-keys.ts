import { boolean, index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';

export const apiKeys = pgTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    kind: text('kind', { enum: ['live', 'test'] }).notNull(),
    /** SHA-256 (hex) of the full key text; the key itself is never stored. */
    keyHash: text('key_hash').notNull().unique(),
    last4: text('last4').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
    /**
     * The demo account's sample traffic is metered under a key of its own (revoked from birth, so it never
     * authenticates): the usage of such a key is sample data, and removing it is deleting that key's usage.
     */
    sample: boolean('sample').notNull().default(false),
  },
  (t) => [index('api_keys_account_idx').on(t.accountId), index('api_keys_revoked_idx').on(t.revokedAt)],
);

export type ApiKeyRow = typeof apiKeys.$inferSelect;
