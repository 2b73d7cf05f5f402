import { bigint, boolean, index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { users } from './users';

export const apiKeys = pgTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    /**
     * The member who owns the key (a developer may change only their own live keys); null for keys made by the
     * operators' CLI, which only admins and owners change. Removing the member revokes or transfers them.
     */
    ownerUserId: text('owner_user_id').references(() => users.id, { onDelete: 'set null' }),
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
    /** Endpoints (KEY_SCOPES) the key may call; null: all of them. */
    scopes: text('scopes').array(),
    /** Model ids the key may use; null: all of them. */
    models: text('models').array(),
    /** After this the key is refused with 401 expired_api_key; a rotated key's end of grace. */
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }),
    /** The key's own requests per minute, checked together with the account's. */
    requestsPerMinute: integer('requests_per_minute'),
    budgetTokens: bigint('budget_tokens', { mode: 'number' }),
    budgetPeriod: text('budget_period', { enum: ['day', 'week', 'month'] }),
    /** Opt-in response cache: how long the key's chat answers are reused, in seconds; null: never cached. */
    cacheTtlSeconds: integer('cache_ttl_seconds'),
    /** Set by a rotation: the key that replaces this one. */
    replacedById: text('replaced_by_id'),
    /** Any change of the row (settings, revocation): what other instances' key caches poll for. */
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    index('api_keys_account_idx').on(t.accountId),
    index('api_keys_revoked_idx').on(t.revokedAt),
    index('api_keys_updated_idx').on(t.updatedAt),
    index('api_keys_owner_idx').on(t.ownerUserId),
  ],
);

export type ApiKeyRow = typeof apiKeys.$inferSelect;
