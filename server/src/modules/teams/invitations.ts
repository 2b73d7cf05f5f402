import { randomBytes } from 'node:crypto';
import {
  type CreatedInvitation,
  CreateInvitationInput,
  type InvitationPreview,
  type InvitationView,
  type SignUpInput,
} from '@tessera/shared';
import { and, desc, eq, gt, isNull } from 'drizzle-orm';
import type { Ctx } from '../../context';
import { accounts, type InvitationRow, invitations, memberships, type UserRow, users } from '../../db/schema';
import { ServiceError } from '../../errors';
import { sha256Hex } from '../../lib/hash';
import { newId } from '../../lib/ids';
import { insertUser, prepareUser } from '../accounts';
import { type AuditContext, type AuditRequest, recordAudit, sessionActor } from '../audit';
import { organisationName } from './organisations';

type Tx = Parameters<Parameters<Ctx['db']['transaction']>[0]>[0];
const DAY_MS = 86_400_000;

function toInvitationView(row: InvitationRow, invitedBy: string | null): InvitationView {
  return {
    id: row.id,
    role: row.role,
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
    invitedBy,
  };
}

/** A link's token: 256 random bits; only its SHA-256 is stored, so the link is shown to the inviter once. */
export async function createInvitation({
  ctx,
  accountId,
  createdBy,
  input,
  audit,
}: {
  ctx: Pick<Ctx, 'db' | 'clock'>;
  accountId: string;
  createdBy: UserRow;
  input: CreateInvitationInput;
  /** `invitation.created` (its role and expiry, never the token) in the insert's transaction. */
  audit?: AuditContext;
}): Promise<CreatedInvitation> {
  const { role, expiresInDays } = CreateInvitationInput.parse(input);
  const token = randomBytes(32).toString('base64url');
  const row = await ctx.db.transaction(async (tx) => {
    const [inserted] = await tx
      .insert(invitations)
      .values({
        id: newId('inv'),
        accountId,
        role,
        tokenHash: sha256Hex(token),
        createdBy: createdBy.id,
        expiresAt: new Date(ctx.clock.now() + expiresInDays * DAY_MS),
      })
      .returning();
    if (!inserted) throw new Error('insert returned no row');
    if (audit)
      await recordAudit(tx, audit, {
        accountId,
        action: 'invitation.created',
        target: { type: 'invitation', id: inserted.id },
        details: { role, expiresAt: inserted.expiresAt.toISOString() },
      });
    return inserted;
  });
  return { ...toInvitationView(row, createdBy.email), token, path: `/invite/${token}` };
}

/** The organisation's invitations that can still be accepted, newest first. */
export async function listInvitations({
  ctx,
  accountId,
}: {
  ctx: Pick<Ctx, 'db' | 'clock'>;
  accountId: string;
}): Promise<InvitationView[]> {
  const rows = await ctx.db
    .select({ invitation: invitations, invitedBy: users.email })
    .from(invitations)
    .leftJoin(users, eq(users.id, invitations.createdBy))
    .where(
      and(
        eq(invitations.accountId, accountId),
        isNull(invitations.acceptedAt),
        isNull(invitations.revokedAt),
        gt(invitations.expiresAt, new Date(ctx.clock.now())),
      ),
    )
    .orderBy(desc(invitations.createdAt));
  return rows.map((r) => toInvitationView(r.invitation, r.invitedBy));
}

export async function revokeInvitation({
  ctx,
  accountId,
  id,
  audit,
}: {
  ctx: Pick<Ctx, 'db' | 'clock'>;
  accountId: string;
  id: string;
  audit?: AuditContext;
}): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const rows = await tx
      .update(invitations)
      .set({ revokedAt: new Date(ctx.clock.now()) })
      .where(
        and(eq(invitations.id, id), eq(invitations.accountId, accountId), isNull(invitations.acceptedAt)),
      )
      .returning({ id: invitations.id, role: invitations.role });
    const [revoked] = rows;
    if (!revoked) {
      throw new ServiceError('not_found', `No pending invitation '${id}' in this organisation.`, {
        param: 'id',
      });
    }
    if (audit)
      await recordAudit(tx, audit, {
        accountId,
        action: 'invitation.revoked',
        target: { type: 'invitation', id },
        details: { role: revoked.role },
      });
  });
}

/** The invitation behind a token, refused with a clear reason when it cannot be used (any more). */
async function usableInvitation(db: Tx | Ctx['db'], token: string, now: number, lock: boolean) {
  const query = db
    .select({ invitation: invitations, account: accounts, invitedBy: users.email })
    .from(invitations)
    .innerJoin(accounts, eq(accounts.id, invitations.accountId))
    .leftJoin(users, eq(users.id, invitations.createdBy))
    .where(eq(invitations.tokenHash, sha256Hex(token)))
    .limit(1);
  const [row] = lock ? await query.for('update', { of: invitations }) : await query;
  if (!row) {
    throw new ServiceError('not_found', 'This invitation link is not valid. Ask for a new one.', {
      param: 'token',
      code: 'invitation_not_found',
    });
  }
  const { invitation } = row;
  const refuse = (message: string, code: string) =>
    new ServiceError('conflict', message, { param: 'token', code });
  if (invitation.acceptedAt)
    throw refuse('This invitation was already used. Ask for a new one.', 'invitation_used');
  if (invitation.revokedAt)
    throw refuse('This invitation was revoked. Ask for a new one.', 'invitation_revoked');
  if (invitation.expiresAt.getTime() <= now) {
    throw refuse(
      `This invitation expired on ${invitation.expiresAt.toISOString()}. Ask for a new one.`,
      'invitation_expired',
    );
  }
  return row;
}

export async function previewInvitation({
  ctx,
  token,
}: {
  ctx: Pick<Ctx, 'db' | 'clock'>;
  token: string;
}): Promise<InvitationPreview> {
  const row = await usableInvitation(ctx.db, token, ctx.clock.now(), false);
  return {
    organisation: organisationName(row.account),
    role: row.invitation.role,
    expiresAt: row.invitation.expiresAt.toISOString(),
    invitedBy: row.invitedBy,
  };
}

/** Uses the invitation inside `tx` (its row locked, so a link is accepted once) for `userId`. */
async function acceptIn(
  tx: Tx,
  token: string,
  user: Pick<UserRow, 'id' | 'email'>,
  now: number,
  request: AuditRequest | undefined,
): Promise<string> {
  const userId = user.id;
  const { invitation } = await usableInvitation(tx, token, now, true);
  const added = await tx
    .insert(memberships)
    .values({ accountId: invitation.accountId, userId, role: invitation.role })
    .onConflictDoNothing()
    .returning({ accountId: memberships.accountId });
  if (added.length === 0) {
    throw new ServiceError('conflict', 'You are already a member of this organisation.', {
      param: 'token',
      code: 'already_member',
    });
  }
  await tx
    .update(invitations)
    .set({ acceptedAt: new Date(now), acceptedBy: userId })
    .where(eq(invitations.id, invitation.id));
  if (request)
    await recordAudit(
      tx,
      { actor: sessionActor(user), ...request },
      {
        accountId: invitation.accountId,
        action: 'member.joined',
        target: { type: 'user', id: userId },
        details: { role: invitation.role, invitation: invitation.id },
      },
    );
  return invitation.accountId;
}

/** A signed-in user accepts: they become a member with the invitation's role. Returns the organisation's id. */
export async function acceptInvitation({
  ctx,
  token,
  user,
  request,
}: {
  ctx: Pick<Ctx, 'db' | 'clock'>;
  token: string;
  user: Pick<UserRow, 'id' | 'email'>;
  /** `member.joined` is written to the organisation, by the user, with the membership. */
  request?: AuditRequest;
}): Promise<string> {
  return ctx.db.transaction((tx) => acceptIn(tx, token, user, ctx.clock.now(), request));
}

/**
 * Sign-up through an invitation: the user and the invitation's membership only (no organisation of their
 * own), in one transaction, so that an unusable link creates nobody.
 */
export async function signUpByInvitation({
  ctx,
  input,
  token,
  request,
}: {
  ctx: Pick<Ctx, 'db' | 'clock'>;
  input: SignUpInput;
  token: string;
  request?: AuditRequest;
}): Promise<{ user: UserRow; accountId: string }> {
  const values = await prepareUser(input);
  return ctx.db.transaction(async (tx) => {
    const user = await insertUser(tx, values);
    const accountId = await acceptIn(tx, token, user, ctx.clock.now(), request);
    return { user, accountId };
  });
}
