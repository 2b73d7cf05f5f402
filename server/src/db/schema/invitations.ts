import { sql } from 'drizzle-orm';
import { check, index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { ROLES } from './memberships';
import { users } from './users';

/** A link that makes its holder a member with `role`; single use, until `expires_at` or a revocation. */
export const invitations = pgTable(
  'invitations',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    role: text('role', { enum: ROLES }).notNull(),
    /** SHA-256 (hex) of the link's token; the token is shown to the inviter once and never stored. */
    tokenHash: text('token_hash').notNull().unique(),
    createdBy: text('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    acceptedAt: timestamp('accepted_at', { withTimezone: true, mode: 'date' }),
    acceptedBy: text('accepted_by').references(() => users.id, { onDelete: 'set null' }),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    index('invitations_account_idx').on(t.accountId),
    check('invitations_role_check', sql`${t.role} in ('owner', 'admin', 'developer', 'viewer')`),
  ],
);

export type InvitationRow = typeof invitations.$inferSelect;
