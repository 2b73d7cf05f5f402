import { and, eq } from 'drizzle-orm';
import type { Ctx } from '../../context';
import { apiKeys } from '../../db/schema';

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
