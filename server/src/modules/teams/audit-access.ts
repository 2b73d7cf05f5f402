import { and, eq } from 'drizzle-orm';
import type { Ctx } from '../../context';
import { apiKeys, memberships } from '../../db/schema';
import type { Member } from '../accounts';
import { authorize } from './permissions';

/**
 * Who may read the audit log (owners and admins, `audit.read` in the role table): THE one check, called by tRPC,
 * GraphQL and the export with the caller's membership. Refused: 403 / FORBIDDEN `permission_denied`.
 */
export function assertCanReadAudit(member: Pick<Member, 'role'>): void {
  authorize(member, 'audit.read');
}

/**
 * An API key reads the log with its owner's role today (a developer's key reads no more than the developer).
 * A key no member owns was made by the operators' CLI for the organisation itself and reads as its owner does.
 */
export async function assertKeyCanReadAudit(
  ctx: Pick<Ctx, 'db'>,
  key: { keyId: string; accountId: string },
): Promise<void> {
  const [row] = await ctx.db
    .select({ owner: apiKeys.ownerUserId, role: memberships.role })
    .from(apiKeys)
    .leftJoin(
      memberships,
      and(eq(memberships.accountId, apiKeys.accountId), eq(memberships.userId, apiKeys.ownerUserId)),
    )
    .where(and(eq(apiKeys.id, key.keyId), eq(apiKeys.accountId, key.accountId)))
    .limit(1);
  if (row && row.owner === null) return;
  // An owner who left has no role: their keys were revoked or handed on, so this reads as the least role.
  assertCanReadAudit({ role: row?.role ?? 'viewer' });
}
