import { z } from 'zod';

/**
 * What the audit log records: a closed set, so that filters, the dashboard and the GraphQL API agree on names.
 * A new action is added here, recorded where it happens (server/src/modules/audit/README.md) and tested.
 */
export const AUDIT_ACTIONS = [
  'auth.sign_in',
  'auth.sign_in_failed',
  'auth.sign_out',
  'account.created',
  'plan.changed',
  'key.created',
  'key.updated',
  'key.rotated',
  'key.revoked',
  'sample_data.removed',
  'member.joined',
  'member.role_changed',
  'member.removed',
  'member.left',
  'invitation.created',
  'invitation.revoked',
  'budget.set',
  'budget.cleared',
  'webhook.set',
  'webhook.removed',
] as const;
export const AuditAction = z.enum(AUDIT_ACTIONS);
export type AuditAction = z.infer<typeof AuditAction>;

export const AUDIT_ACTION_LABELS: Record<AuditAction, string> = {
  'auth.sign_in': 'Signed in',
  'auth.sign_in_failed': 'Sign-in failed',
  'auth.sign_out': 'Signed out',
  'account.created': 'Account created',
  'plan.changed': 'Plan changed',
  'key.created': 'Key created',
  'key.updated': 'Key edited',
  'key.rotated': 'Key rotated',
  'key.revoked': 'Key revoked',
  'sample_data.removed': 'Sample data removed',
  'member.joined': 'Member joined',
  'member.role_changed': 'Role changed',
  'member.removed': 'Member removed',
  'member.left': 'Member left',
  'invitation.created': 'Invitation created',
  'invitation.revoked': 'Invitation revoked',
  'budget.set': 'Spend budget set',
  'budget.cleared': 'Spend budget cleared',
  'webhook.set': 'Webhook set',
  'webhook.removed': 'Webhook removed',
};

export const AUDIT_ACTOR_KINDS = ['user', 'api_key', 'operator', 'system'] as const;
export type AuditActorKind = (typeof AUDIT_ACTOR_KINDS)[number];

const Instant = z.iso.datetime({
  offset: true,
  error: 'Must be an ISO 8601 date and time, such as 2027-01-31T12:00:00Z',
});

/** A page of the log: newest first, `after` the previous page's `endCursor`, narrowed by action and time. */
export const AuditListInput = z
  .object({
    first: z.number().int().min(1).max(100).default(50),
    after: z.string().max(200).nullish(),
    action: AuditAction.nullish(),
    /** Inclusive. */
    from: Instant.nullish(),
    /** Exclusive. */
    to: Instant.nullish(),
  })
  .refine((v) => !v.from || !v.to || Date.parse(v.from) < Date.parse(v.to), {
    error: '`from` must be before `to`',
    path: ['from'],
  });
export type AuditListInput = z.input<typeof AuditListInput>;

export interface AuditEventView {
  id: string;
  action: AuditAction;
  actor: { kind: AuditActorKind; userId: string | null; email: string | null };
  target: { type: string; id: string } | null;
  details: Record<string, unknown>;
  ip: string | null;
  userAgent: string | null;
  createdAt: string;
}

export interface AuditPage {
  events: (AuditEventView & { cursor: string })[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}
