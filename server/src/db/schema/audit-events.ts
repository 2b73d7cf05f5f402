import { sql } from 'drizzle-orm';
import { bigserial, check, index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The audit log (modules/audit): who did what to the account, and when. Append-only: a trigger in the migration
 * refuses UPDATE, DELETE and TRUNCATE. No foreign key to accounts on purpose: the log must outlive what it
 * talks about (a key deleted with the sample data, a member removed), and nothing here is ever cascaded away.
 */
export const auditEvents = pgTable(
  'audit_events',
  {
    /** Insertion order breaks ties between events of one transaction (same `created_at`). */
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    /** The organisation (tenant) the event belongs to; every read is keyed by it first. */
    accountId: text('account_id').notNull(),
    /** The user who acted (today the account's own id: teams give each account a user with that id). */
    actorUserId: text('actor_user_id'),
    /** Copied at the time of the event, so the log reads right after the member is gone. */
    actorEmail: text('actor_email'),
    actorKind: text('actor_kind', { enum: ['user', 'api_key', 'operator', 'system'] }).notNull(),
    /** One of AUDIT_ACTIONS (shared/src/audit.ts). */
    action: text('action').notNull(),
    targetType: text('target_type'),
    targetId: text('target_id'),
    /** Before/after of edited settings and the like; never a secret (modules/audit/record.ts scrubs). */
    details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
    ip: text('ip'),
    /** Cut to 256 characters. */
    userAgent: text('user_agent'),
    /** Milliseconds, so that a cursor holding it as an ISO string compares exactly; the clock, not the transaction's start. */
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' })
      .notNull()
      .default(sql`date_trunc('milliseconds', clock_timestamp())`),
  },
  (t) => [
    index('audit_events_account_created_idx').on(t.accountId, t.createdAt.desc(), t.id.desc()),
    check('audit_events_actor_kind', sql`${t.actorKind} in ('user', 'api_key', 'operator', 'system')`),
    // Cursors carry the time as a JS Date (milliseconds): a finer time would make keyset pages skip rows.
    check('audit_events_created_ms', sql`${t.createdAt} = date_trunc('milliseconds', ${t.createdAt})`),
  ],
);

export type AuditEventRow = typeof auditEvents.$inferSelect;
