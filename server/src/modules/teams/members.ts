import type { ChangeRoleInput, MemberView, RemoveMemberInput } from '@tessera/shared';
import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { Ctx } from '../../context';
import { apiKeys, memberships, users } from '../../db/schema';
import { ServiceError } from '../../errors';
import { type AuditContext, recordAudit } from '../audit';

type Tx = Parameters<Parameters<Ctx['db']['transaction']>[0]>[0];

function noSuchMember(userId: string): ServiceError {
  return new ServiceError('not_found', `No member '${userId}' in this organisation.`, { param: 'userId' });
}

/**
 * Locks the organisation's owner memberships, then tells whether `userId` is its only owner. Concurrent
 * demotions or removals of two owners wait on the same rows, so they cannot both pass and leave none.
 */
async function isLastOwner(tx: Tx, accountId: string, userId: string): Promise<boolean> {
  const owners = await tx
    .select({ userId: memberships.userId })
    .from(memberships)
    .where(and(eq(memberships.accountId, accountId), eq(memberships.role, 'owner')))
    .for('update');
  return owners.length === 1 && owners[0]?.userId === userId;
}

function lastOwner(doing: string): ServiceError {
  return new ServiceError('conflict', `The last owner cannot ${doing}: make another member an owner first.`, {
    param: 'userId',
    code: 'last_owner',
  });
}

export async function listMembers({
  ctx,
  accountId,
}: {
  ctx: Pick<Ctx, 'db'>;
  accountId: string;
}): Promise<MemberView[]> {
  const rows = await ctx.db
    .select({
      userId: users.id,
      email: users.email,
      name: users.name,
      role: memberships.role,
      joinedAt: memberships.createdAt,
      liveKeys: sql<number>`(select count(*)::int from ${apiKeys} where ${apiKeys.accountId} = ${accountId}
        and ${apiKeys.ownerUserId} = ${users.id} and ${apiKeys.revokedAt} is null and ${apiKeys.kind} = 'live')`,
      testKeys: sql<number>`(select count(*)::int from ${apiKeys} where ${apiKeys.accountId} = ${accountId}
        and ${apiKeys.ownerUserId} = ${users.id} and ${apiKeys.revokedAt} is null and ${apiKeys.kind} = 'test')`,
    })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.accountId, accountId))
    .orderBy(asc(memberships.createdAt), asc(users.email));
  return rows.map((r) => ({
    ...r,
    liveKeys: Number(r.liveKeys),
    testKeys: Number(r.testKeys),
    joinedAt: r.joinedAt.toISOString(),
  }));
}

export async function changeRole({
  ctx,
  accountId,
  input,
  audit,
}: {
  ctx: Pick<Ctx, 'db'>;
  accountId: string;
  input: ChangeRoleInput;
  /** `member.role_changed` (from, to) in the change's transaction. */
  audit?: AuditContext;
}): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    if (input.role !== 'owner' && (await isLastOwner(tx, accountId, input.userId))) {
      throw lastOwner('be given another role');
    }
    const where = and(eq(memberships.accountId, accountId), eq(memberships.userId, input.userId));
    const [before] = await tx.select({ role: memberships.role }).from(memberships).where(where).limit(1);
    const updated = await tx
      .update(memberships)
      .set({ role: input.role })
      .where(where)
      .returning({ userId: memberships.userId });
    if (updated.length === 0 || !before) throw noSuchMember(input.userId);
    if (audit && before.role !== input.role)
      await recordAudit(tx, audit, {
        accountId,
        action: 'member.role_changed',
        target: { type: 'user', id: input.userId },
        details: { email: await emailOf(tx, input.userId), from: before.role, to: input.role },
      });
  });
}

/** The member's email, copied into events so the log still names them once they are gone. */
async function emailOf(tx: Tx, userId: string): Promise<string | null> {
  const [row] = await tx.select({ email: users.email }).from(users).where(eq(users.id, userId)).limit(1);
  return row?.email ?? null;
}

/**
 * Removes a member. The keys they own in this organisation move to `transferKeysTo` (another member) or are
 * revoked; `onRevoked` lets this instance's key cache drop them at once (others poll `updated_at`). The
 * member's sessions keep existing but no longer resolve to this organisation (accounts/sessions.ts).
 */
export async function removeMember({
  ctx,
  accountId,
  input,
  onRevoked,
  audit,
}: {
  ctx: Pick<Ctx, 'db'>;
  accountId: string;
  input: RemoveMemberInput;
  onRevoked?: (keyHash: string) => void;
  /** `member.removed` (or `member.left` when `left`) with what became of the keys, in the same transaction. */
  audit?: AuditContext & { left?: boolean };
}): Promise<{ revokedKeys: number; transferredKeys: number }> {
  const { userId, transferKeysTo } = input;
  if (transferKeysTo === userId) {
    throw new ServiceError('invalid_request', 'The keys cannot be transferred to the member being removed.', {
      param: 'transferKeysTo',
    });
  }
  const result = await ctx.db.transaction(async (tx) => {
    if (await isLastOwner(tx, accountId, userId)) throw lastOwner('be removed');
    const removed = await tx
      .delete(memberships)
      .where(and(eq(memberships.accountId, accountId), eq(memberships.userId, userId)))
      .returning({ userId: memberships.userId, role: memberships.role });
    const [member] = removed;
    if (!member) throw noSuchMember(userId);
    const record = async (keys: Record<string, unknown>) => {
      if (!audit) return;
      const { left, ...context } = audit;
      await recordAudit(tx, context, {
        accountId,
        action: left ? 'member.left' : 'member.removed',
        target: { type: 'user', id: userId },
        details: { email: await emailOf(tx, userId), role: member.role, ...keys },
      });
    };
    const theirKeys = and(eq(apiKeys.accountId, accountId), eq(apiKeys.ownerUserId, userId));
    if (transferKeysTo) {
      const [heir] = await tx
        .select({ userId: memberships.userId })
        .from(memberships)
        .where(and(eq(memberships.accountId, accountId), eq(memberships.userId, transferKeysTo)))
        .limit(1);
      if (!heir) {
        throw new ServiceError(
          'invalid_request',
          `No member '${transferKeysTo}' in this organisation to take the keys.`,
          {
            param: 'transferKeysTo',
          },
        );
      }
      const moved = await tx
        .update(apiKeys)
        .set({ ownerUserId: transferKeysTo, updatedAt: sql`now()` })
        .where(theirKeys)
        .returning({ id: apiKeys.id });
      await record({ keysTransferredTo: transferKeysTo, keysTransferred: moved.length });
      return { revoked: [] as string[], transferredKeys: moved.length };
    }
    const revoked = await tx
      .update(apiKeys)
      .set({ revokedAt: sql`now()`, updatedAt: sql`now()` })
      .where(and(theirKeys, isNull(apiKeys.revokedAt)))
      .returning({ keyHash: apiKeys.keyHash });
    await record({ keysRevoked: revoked.length });
    return { revoked: revoked.map((r) => r.keyHash), transferredKeys: 0 };
  });
  for (const hash of result.revoked) onRevoked?.(hash);
  return { revokedKeys: result.revoked.length, transferredKeys: result.transferredKeys };
}

/** A member leaves an organisation on their own; their keys are revoked, as on a removal without transfer. */
export async function leaveOrganisation({
  ctx,
  accountId,
  userId,
  onRevoked,
  audit,
}: {
  ctx: Pick<Ctx, 'db'>;
  accountId: string;
  userId: string;
  onRevoked?: (keyHash: string) => void;
  audit?: AuditContext;
}): Promise<void> {
  try {
    await removeMember({
      ctx,
      accountId,
      input: { userId },
      onRevoked,
      ...(audit && { audit: { ...audit, left: true } }),
    });
  } catch (err) {
    if (err instanceof ServiceError && err.code === 'last_owner') throw lastOwner('leave');
    throw err;
  }
}
