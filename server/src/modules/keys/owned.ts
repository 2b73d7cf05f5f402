import type { KeyKind } from '@tessera/shared';
import { and, eq } from 'drizzle-orm';
import type { Ctx } from '../../context';
import { apiKeys } from '../../db/schema';
import { ServiceError } from '../../errors';

/** Whether a key id is one of the account's keys (revoked ones included): one primary-key read. */
export async function isAccountKey({
  ctx,
  accountId,
  keyId,
}: {
  ctx: Pick<Ctx, 'db'>;
  accountId: string;
  keyId: string;
}): Promise<boolean> {
  const rows = await ctx.db
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.accountId, accountId)))
    .limit(1);
  return rows.length > 0;
}

/**
 * What a permission check needs to know about one of the account's keys (its kind and owner); another
 * account's key id is "not found", as everywhere.
 */
export async function keyOwnership({
  ctx,
  accountId,
  keyId,
}: {
  ctx: Pick<Ctx, 'db'>;
  accountId: string;
  keyId: string;
}): Promise<{ kind: KeyKind; ownerUserId: string | null }> {
  const [row] = await ctx.db
    .select({ kind: apiKeys.kind, ownerUserId: apiKeys.ownerUserId })
    .from(apiKeys)
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.accountId, accountId)))
    .limit(1);
  if (!row)
    throw new ServiceError('not_found', `No API key with id '${keyId}' in this account.`, {
      param: 'id',
      resource: { kind: 'api_key', id: keyId },
    });
  return row;
}
