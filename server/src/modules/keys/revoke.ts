import type { ApiKeyView } from '@tessera/shared';
import { and, eq, sql } from 'drizzle-orm';
import type { Ctx } from '../../context';
import { apiKeys } from '../../db/schema';
import { ServiceError } from '../../errors';
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
}: {
  ctx: Pick<Ctx, 'db' | 'clock'>;
  accountId: string;
  keyId: string;
  /** Lets the local verifier drop the key at once, before any poll. */
  onRevoked?: (keyHash: string) => void;
}): Promise<ApiKeyView> {
  const [row] = await ctx.db
    .update(apiKeys)
    .set({ revokedAt: sql`coalesce(${apiKeys.revokedAt}, now())`, updatedAt: sql`now()` })
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.accountId, accountId)))
    .returning();
  if (!row)
    throw new ServiceError('not_found', `No API key with id '${keyId}' in this account.`, {
      param: 'id',
      resource: { kind: 'api_key', id: keyId },
    });
  onRevoked?.(row.keyHash);
  return toKeyView(row, ctx.clock.now());
}
