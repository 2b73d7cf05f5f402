import { randomBytes } from 'node:crypto';
import { and, eq, gt } from 'drizzle-orm';
import type { Ctx } from '../../context';
import { type AccountRow, accounts, sessions } from '../../db/schema';
import { sha256Hex } from '../../lib/hash';
import { newId } from '../../lib/ids';

export interface NewSession {
  token: string;
  expiresAt: Date;
}

export async function createSession({
  ctx,
  accountId,
}: {
  ctx: Pick<Ctx, 'db' | 'clock' | 'config'>;
  accountId: string;
}): Promise<NewSession> {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(ctx.clock.now() + ctx.config.sessionTtlMs);
  await ctx.db
    .insert(sessions)
    .values({ id: newId('ses'), tokenHash: sha256Hex(token), accountId, expiresAt });
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

export async function endSession({ ctx, token }: { ctx: Pick<Ctx, 'db'>; token: string }): Promise<void> {
  await ctx.db.delete(sessions).where(eq(sessions.tokenHash, sha256Hex(token)));
}
