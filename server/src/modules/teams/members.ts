import type { ChangeRoleInput, MemberView, RemoveMemberInput } from '@tessera/shared';
import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { Ctx } from '../../context';
import { apiKeys, memberships, users } from '../../db/schema';
import { ServiceError } from '../../errors';

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
      activeKeys: sql<number>`(select count(*)::int from ${apiKeys} where ${apiKeys.accountId} = ${accountId}
        and ${apiKeys.ownerUserId} = ${users.id} and ${apiKeys.revokedAt} is null)`,
    })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.accountId, accountId))
    .orderBy(asc(memberships.createdAt), asc(users.email));
  return rows.map((r) => ({ ...r, activeKeys: Number(r.activeKeys), joinedAt: r.joinedAt.toISOString() }));
}

export async function changeRole({
  ctx,
  accountId,
  input,
}: {
  ctx: Pick<Ctx, 'db'>;
  accountId: string;
  input: ChangeRoleInput;
}): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    if (input.role !== 'owner' && (await isLastOwner(tx, accountId, input.userId))) {
      throw lastOwner('be given another role');
    }
    const updated = await tx
      .update(memberships)
      .set({ role: input.role })
      .where(and(eq(memberships.accountId, accountId), eq(memberships.userId, input.userId)))
      .returning({ userId: memberships.userId });
    if (updated.length === 0) throw noSuchMember(input.userId);
  });
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
}: {
  ctx: Pick<Ctx, 'db'>;
  accountId: string;
  input: RemoveMemberInput;
  onRevoked?: (keyHash: string) => void;
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
      .returning({ userId: memberships.userId });
    if (removed.length === 0) throw noSuchMember(userId);
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
      return { revoked: [] as string[], transferredKeys: moved.length };
    }
    const revoked = await tx
      .update(apiKeys)
      .set({ revokedAt: sql`now()`, updatedAt: sql`now()` })
      .where(and(theirKeys, isNull(apiKeys.revokedAt)))
      .returning({ keyHash: apiKeys.keyHash });
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
}: {
  ctx: Pick<Ctx, 'db'>;
  accountId: string;
  userId: string;
  onRevoked?: (keyHash: string) => void;
}): Promise<void> {
  try {
    await removeMember({ ctx, accountId, input: { userId }, onRevoked });
  } catch (err) {
    if (err instanceof ServiceError && err.code === 'last_owner') throw lastOwner('leave');
    throw err;
  }
}
