import { randomBytes } from 'node:crypto';
import type { Role } from '@tessera/shared';
import { and, asc, eq, gt } from 'drizzle-orm';
import type { Ctx } from '../../context';
import { type AccountRow, accounts, memberships, sessions, type UserRow, users } from '../../db/schema';
import { sha256Hex } from '../../lib/hash';
import { newId } from '../../lib/ids';
import { type AuditContext, recordAudit, sessionActor } from '../audit';

export interface NewSession {
  token: string;
  expiresAt: Date;
}

/** A user acting in one organisation with a role: what every permission check (modules/teams) is asked about. */
export interface Member {
  userId: string;
  role: Role;
  account: AccountRow;
}

/** The caller behind a session: the user, and their membership in the session's organisation (null: none). */
export interface SessionCaller {
  user: UserRow;
  member: Member | null;
}

/** The organisation a new session works in: the user's oldest membership, or none. */
async function defaultOrganisation(ctx: Pick<Ctx, 'db'>, userId: string): Promise<string | null> {
  const [row] = await ctx.db
    .select({ accountId: memberships.accountId })
    .from(memberships)
    .where(eq(memberships.userId, userId))
    .orderBy(asc(memberships.createdAt), asc(memberships.accountId))
    .limit(1);
  return row?.accountId ?? null;
}

export async function createSession({
  ctx,
  userId,
  accountId,
  audit,
}: {
  ctx: Pick<Ctx, 'db' | 'clock' | 'config'>;
  userId: string;
  /** The organisation to work in; by default the user's oldest membership. */
  accountId?: string | null;
  /** A sign-in: `auth.sign_in` is written to the session's organisation with the session, in one transaction. */
  audit?: AuditContext;
}): Promise<NewSession> {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(ctx.clock.now() + ctx.config.sessionTtlMs);
  const organisation = accountId === undefined ? await defaultOrganisation(ctx, userId) : accountId;
  await ctx.db.transaction(async (tx) => {
    await tx.insert(sessions).values({
      id: newId('ses'),
      tokenHash: sha256Hex(token),
      userId,
      accountId: organisation,
      expiresAt,
    });
    // The session's id and token stay out of the event: its hash would identify the cookie.
    if (audit && organisation)
      await recordAudit(tx, audit, {
        accountId: organisation,
        action: 'auth.sign_in',
        target: { type: 'account', id: organisation },
      });
  });
  return { token, expiresAt };
}

/**
 * The user behind a session cookie's token and their membership in the session's organisation, or null when
 * the token is unknown or expired. One query: the membership is joined on every call, so a member who was
 * removed (or demoted) is refused (or limited) from their very next call, on every instance.
 */
export async function resolveSession({
  ctx,
  token,
}: {
  ctx: Pick<Ctx, 'db' | 'clock'>;
  token: string;
}): Promise<SessionCaller | null> {
  if (token.length < 20 || token.length > 100) return null;
  const [row] = await ctx.db
    .select({ user: users, role: memberships.role, account: accounts })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .leftJoin(
      memberships,
      and(eq(memberships.accountId, sessions.accountId), eq(memberships.userId, sessions.userId)),
    )
    .leftJoin(accounts, eq(accounts.id, memberships.accountId))
    .where(and(eq(sessions.tokenHash, sha256Hex(token)), gt(sessions.expiresAt, new Date(ctx.clock.now()))))
    .limit(1);
  if (!row) return null;
  const member =
    row.role && row.account ? { userId: row.user.id, role: row.role, account: row.account } : null;
  return { user: row.user, member };
}

/** Points a session at another organisation; the caller has checked the membership (modules/teams). */
export async function setSessionOrganisation({
  ctx,
  token,
  accountId,
}: {
  ctx: Pick<Ctx, 'db'>;
  token: string;
  accountId: string | null;
}): Promise<void> {
  await ctx.db
    .update(sessions)
    .set({ accountId })
    .where(eq(sessions.tokenHash, sha256Hex(token)));
}

/**
 * Signs out: the session is deleted and, when it existed and worked in an organisation, `auth.sign_out` is
 * written there by the session's user in the same transaction (an unknown or already ended token records nothing).
 */
export async function endSession({
  ctx,
  token,
  audit,
}: {
  ctx: Pick<Ctx, 'db'>;
  token: string;
  audit?: Omit<AuditContext, 'actor'>;
}): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const [ended] = await tx
      .delete(sessions)
      .where(eq(sessions.tokenHash, sha256Hex(token)))
      .returning({ accountId: sessions.accountId, userId: sessions.userId });
    if (!ended?.accountId || !audit) return;
    const [user] = await tx
      .select({ id: users.id, email: users.email })
      .from(users)
      .where(eq(users.id, ended.userId))
      .limit(1);
    if (user)
      await recordAudit(
        tx,
        { ...audit, actor: sessionActor(user) },
        {
          accountId: ended.accountId,
          action: 'auth.sign_out',
          target: { type: 'account', id: ended.accountId },
        },
      );
  });
}
