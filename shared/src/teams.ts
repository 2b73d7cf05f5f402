import { z } from 'zod';

/** A member's role in an organisation; what each may do is the server's modules/teams/permissions.ts. */
export const Role = z.enum(['owner', 'admin', 'developer', 'viewer'], {
  error: 'role is one of owner, admin, developer, viewer',
});
export type Role = z.infer<typeof Role>;
export const ROLES = Role.options;

export const DEFAULT_INVITATION_DAYS = 7;
export const MAX_INVITATION_DAYS = 30;

export const CreateInvitationInput = z.object({
  role: Role,
  expiresInDays: z
    .number({ error: 'expiresInDays is a whole number of days' })
    .int({ error: 'expiresInDays is a whole number of days' })
    .min(1, { error: 'expiresInDays must be at least 1' })
    .max(MAX_INVITATION_DAYS, { error: `expiresInDays must be at most ${MAX_INVITATION_DAYS}` })
    .default(DEFAULT_INVITATION_DAYS),
});
export type CreateInvitationInput = z.input<typeof CreateInvitationInput>;

const Token = z.string({ error: 'token is required' }).min(20).max(100);
export const InvitationTokenInput = z.object({ token: Token });
export type InvitationTokenInput = z.infer<typeof InvitationTokenInput>;

export const IdInput = z.object({ id: z.string().min(1).max(100) });

export const ChangeRoleInput = z.object({ userId: z.string().min(1).max(100), role: Role });
export type ChangeRoleInput = z.infer<typeof ChangeRoleInput>;

export const RemoveMemberInput = z.object({
  userId: z.string().min(1).max(100),
  /** The member who takes over the removed member's keys; without it those keys are revoked. */
  transferKeysTo: z.string().min(1).max(100).optional(),
});
export type RemoveMemberInput = z.infer<typeof RemoveMemberInput>;

export const SwitchOrganisationInput = z.object({ accountId: z.string().min(1).max(100) });

export const MemberView = z.object({
  userId: z.string(),
  email: z.string(),
  name: z.string().nullable(),
  role: Role,
  joinedAt: z.string(),
  /** Live keys the member owns that still work (revoked or transferred on removal). */
  liveKeys: z.number().int(),
  /** Test keys the member owns that still work. */
  testKeys: z.number().int(),
});
export type MemberView = z.infer<typeof MemberView>;

export const InvitationView = z.object({
  id: z.string(),
  role: Role,
  createdAt: z.string(),
  expiresAt: z.string(),
  invitedBy: z.string().nullable(),
});
export type InvitationView = z.infer<typeof InvitationView>;

/** Returned once, at creation: the link's token exists nowhere else (only its hash is stored). */
export const CreatedInvitation = InvitationView.extend({ token: z.string(), path: z.string() });
export type CreatedInvitation = z.infer<typeof CreatedInvitation>;

/** What the invitation page shows before accepting. */
export const InvitationPreview = z.object({
  organisation: z.string(),
  role: Role,
  expiresAt: z.string(),
  invitedBy: z.string().nullable(),
});
export type InvitationPreview = z.infer<typeof InvitationPreview>;

export const OrganisationView = z.object({ id: z.string(), name: z.string(), role: Role });
export type OrganisationView = z.infer<typeof OrganisationView>;

/** The signed-in user, the organisation the session works in (null: none) and all of theirs (the switcher). */
export const SessionView = z.object({
  user: z.object({ id: z.string(), email: z.string(), name: z.string().nullable() }),
  organisation: OrganisationView.nullable(),
  organisations: z.array(OrganisationView),
});
export type SessionView = z.infer<typeof SessionView>;

/**
 * The one table of what each role may do: the server's every transport enforces it (modules/teams), the
 * dashboard hides or disables what the role cannot use. The roles are nested (owner ⊇ admin ⊇ developer ⊇
 * viewer), so an action names the least role that may do it.
 */
export const ROLE_ACTIONS = {
  read: { least: 'viewer', what: 'Reading the dashboard' },
  'members.read': { least: 'admin', what: 'Listing members and invitations' },
  'members.manage': { least: 'owner', what: 'Managing members, roles and invitations' },
  'plan.manage': { least: 'owner', what: 'Changing the plan' },
  'audit.read': { least: 'admin', what: 'Reading the audit log' },
  'budgets.manage': { least: 'admin', what: 'Setting spend budgets' },
  'webhooks.manage': { least: 'admin', what: 'Setting the webhook' },
  'sample.remove': { least: 'admin', what: 'Removing the sample data' },
  'playground.use': { least: 'developer', what: 'Using the playground' },
  'keys.create': { least: 'developer', what: 'Creating API keys' },
  'keys.change.test': { least: 'developer', what: 'Changing test keys' },
  /** A developer's own live keys. */
  'keys.change.own': { least: 'developer', what: 'Changing your own live keys' },
  'keys.change.any': { least: 'admin', what: "Changing another member's live keys" },
} as const satisfies Record<string, { least: Role; what: string }>;

export type RoleAction = keyof typeof ROLE_ACTIONS;

const RANK: Record<Role, number> = { viewer: 0, developer: 1, admin: 2, owner: 3 };

export function can(role: Role, action: RoleAction): boolean {
  return RANK[role] >= RANK[ROLE_ACTIONS[action].least];
}

/** Why a role may not do an action, naming the role needed: the refusal's message, and the UI's hint. */
export function refusalOf(role: Role, action: RoleAction): string {
  const { least, what } = ROLE_ACTIONS[action];
  const needed = least === 'owner' ? 'the owner role' : `the ${least} role or higher`;
  return `${what} needs ${needed}; your role here is ${role}.`;
}

/** Which action changing one key is: a test key, the member's own live key, or another member's live key. */
export function keyChangeAction(
  userId: string,
  key: { kind: 'live' | 'test'; ownerUserId: string | null },
): RoleAction {
  if (key.kind === 'test') return 'keys.change.test';
  return key.ownerUserId === userId ? 'keys.change.own' : 'keys.change.any';
}
