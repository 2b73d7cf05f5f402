import type { ApiKeyView } from '@tessera/shared';
import { and, eq, sql } from 'drizzle-orm';
import type { Ctx } from '../../context';
import { apiKeys } from '../../db/schema';
import { ServiceError } from '../../errors';
import { type AuditContext, recordAudit } from '../audit';
import { keySnapshot } from './audit';
import { toKeyView } from './view';

/**
 * Revokes one of the account's keys. Scoped by account: another account's key id is "not found",
 * never revealed. Revoking twice keeps the first revocation time.
 */
export async function revokeKey({
  ctx,
  accountId,
  keyId,
  onRevoked,
  audit,
}: {
  ctx: Pick<Ctx, 'db' | 'clock'>;
  accountId: string;
  keyId: string;
  /** Lets the local verifier drop the key at once, before any poll. */
  onRevoked?: (keyHash: string) => void;
  /** Who revokes it: a `key.revoked` event in the same transaction (only the first revocation has one). */
  audit?: AuditContext;
}): Promise<ApiKeyView> {
  const row = await ctx.db.transaction(async (tx) => {
    // Locked first: an event is written only by the call that revoked the key, so revoking twice (or two
    // instances at once) leaves one event.
    const [before] = await tx
      .select({ revokedAt: apiKeys.revokedAt })
      .from(apiKeys)
      .where(and(eq(apiKeys.id, keyId), eq(apiKeys.accountId, accountId)))
      .for('update')
      .limit(1);
    if (!before) return undefined;
    const [updated] = await tx
      .update(apiKeys)
      .set({ revokedAt: sql`coalesce(${apiKeys.revokedAt}, now())`, updatedAt: sql`now()` })
      .where(and(eq(apiKeys.id, keyId), eq(apiKeys.accountId, accountId)))
      .returning();
    if (updated && audit && !before.revokedAt)
      await recordAudit(tx, audit, {
        accountId,
        action: 'key.revoked',
        target: { type: 'api_key', id: updated.id },
        details: keySnapshot(updated),
      });
    return updated;
  });
  if (!row)
    throw new ServiceError('not_found', `No API key with id '${keyId}' in this account.`, {
      param: 'id',
      resource: { kind: 'api_key', id: keyId },
    });
  onRevoked?.(row.keyHash);
  return toKeyView(row, ctx.clock.now());
}
