import { randomBytes } from 'node:crypto';
import { and, eq, gt } from 'drizzle-orm';
import type { Ctx } from '../../context';
import { type AccountRow, accounts, sessions } from '../../db/schema';
import { sha256Hex } from '../../lib/hash';
import { newId } from '../../lib/ids';
import { type AuditContext, recordAudit, sessionActor } from '../audit';

export interface NewSession {
  token: string;
  expiresAt: Date;
}

export async function createSession({
  ctx,
  accountId,
  audit,
}: {
  ctx: Pick<Ctx, 'db' | 'clock' | 'config'>;
  accountId: string;
  /** A sign-in: `auth.sign_in` is written with the session, in one transaction. */
  audit?: AuditContext;
}): Promise<NewSession> {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(ctx.clock.now() + ctx.config.sessionTtlMs);
  await ctx.db.transaction(async (tx) => {
    await tx.insert(sessions).values({ id: newId('ses'), tokenHash: sha256Hex(token), accountId, expiresAt });
    // The session's id and token stay out of the event: its hash would identify the cookie.
    if (audit)
      await recordAudit(tx, audit, {
        accountId,
        action: 'auth.sign_in',
        target: { type: 'account', id: accountId },
      });
  });
  return { token, expiresAt };
}

/** The account behind a session cookie's token, or null when it is unknown or expired. */
export async function resolveSession({
  ctx,
  token,
}: {
  ctx: Pick<Ctx, 'db' | 'clock'>;
  token: string;
}): Promise<AccountRow | null> {
  if (token.length < 20 || token.length > 100) return null;
  const [row] = await ctx.db
    .select({ account: accounts })
    .from(sessions)
    .innerJoin(accounts, eq(accounts.id, sessions.accountId))
    .where(and(eq(sessions.tokenHash, sha256Hex(token)), gt(sessions.expiresAt, new Date(ctx.clock.now()))))
    .limit(1);
  return row?.account ?? null;
}

/**
 * Signs out: the session is deleted and, when it existed, `auth.sign_out` is written by its account's user in
 * the same transaction (an unknown or already ended token records nothing).
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
      .returning({ accountId: sessions.accountId });
    if (!ended || !audit) return;
    const [account] = await tx
      .select({ id: accounts.id, email: accounts.email })
      .from(accounts)
      .where(eq(accounts.id, ended.accountId))
      .limit(1);
    if (account)
      await recordAudit(
        tx,
        { ...audit, actor: sessionActor(account) },
        { accountId: account.id, action: 'auth.sign_out', target: { type: 'account', id: account.id } },
      );
  });
}
