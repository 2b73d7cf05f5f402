import type { ApiKeyView } from '@tessera/shared';
import { desc, eq } from 'drizzle-orm';
import type { Ctx } from '../../context';
import { apiKeys } from '../../db/schema';
import { toKeyView } from './view';

export async function listKeys({
  ctx,
  accountId,
}: {
  ctx: Pick<Ctx, 'db' | 'clock'>;
  accountId: string;
}): Promise<ApiKeyView[]> {
  const rows = await ctx.db
    .select()
    .from(apiKeys)
    .where(eq(apiKeys.accountId, accountId))
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
  const now = ctx.clock.now();
  return rows.map((row) => toKeyView(row, now));
}
