import { pgTable, text } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { timestamps } from './columns';

/**
 * The organisation's webhook: where budget alerts are POSTed. The signing secret must be read back to sign,
 * so it cannot be hashed: it is stored encrypted (AES-256-GCM) when SECRETS_ENCRYPTION_KEY is set
 * (modules/webhooks/secret-box.ts).
 */
export const webhookEndpoints = pgTable('webhook_endpoints', {
  accountId: text('account_id')
    .primaryKey()
    .references(() => accounts.id, { onDelete: 'cascade' }),
  url: text('url').notNull(),
  secret: text('secret').notNull(),
  /** The secret's last 4 characters, to tell secrets apart in the dashboard. */
  secretLast4: text('secret_last4').notNull(),
  ...timestamps,
});
export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;
