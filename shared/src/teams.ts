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
  /** Keys the member owns that still work (revoked or transferred on removal). */
  activeKeys: z.number().int(),
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
