import { and, eq, inArray } from 'drizzle-orm';
import type { Ctx } from '../../context';
import { apiKeys, usageDeploymentRollups, usageEvents, usageRollups } from '../../db/schema';
import { type AuditContext, recordAudit } from '../audit';

/** Whether the account still shows sample traffic. */
export async function hasSampleData({ ctx, accountId }: { ctx: Pick<Ctx, 'db'>; accountId: string }) {
  const [row] = await ctx.db
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(and(eq(apiKeys.accountId, accountId), eq(apiKeys.sample, true)))
    .limit(1);
  return row !== undefined;
}

/**
 * Deletes the account's sample traffic: the events and rollups of its sample keys, then the keys. Real usage
 * is under other keys and is not touched. Returns how many events were removed.
 */
export async function removeSampleData({
  ctx,
  accountId,
  audit,
}: {
  ctx: Pick<Ctx, 'db'>;
  accountId: string;
  /** Who removes it: `sample_data.removed` in the same transaction, when there was sample data to remove. */
  audit?: AuditContext;
}): Promise<{ removedEvents: number }> {
  return ctx.db.transaction(async (tx) => {
    const keys = await tx
      .select({ id: apiKeys.id })
      .from(apiKeys)
      .where(and(eq(apiKeys.accountId, accountId), eq(apiKeys.sample, true)));
    const ids = keys.map((k) => k.id);
    if (ids.length === 0) return { removedEvents: 0 };
    const removed = await tx
      .delete(usageEvents)
      .where(and(eq(usageEvents.accountId, accountId), inArray(usageEvents.keyId, ids)))
      .returning({ id: usageEvents.id });
    await tx
      .delete(usageRollups)
      .where(and(eq(usageRollups.accountId, accountId), inArray(usageRollups.keyId, ids)));
    await tx
      .delete(usageDeploymentRollups)
      .where(
        and(eq(usageDeploymentRollups.accountId, accountId), inArray(usageDeploymentRollups.keyId, ids)),
      );
    await tx.delete(apiKeys).where(and(eq(apiKeys.accountId, accountId), inArray(apiKeys.id, ids)));
    if (audit)
      await recordAudit(tx, audit, {
        accountId,
        action: 'sample_data.removed',
        details: { removedEvents: removed.length, sampleKeys: ids },
      });
    return { removedEvents: removed.length };
  });
}
