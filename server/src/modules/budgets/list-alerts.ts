import { desc, eq } from 'drizzle-orm';
import type { Ctx } from '../../context';
import { type BudgetAlertRow, budgetAlerts } from '../../db/schema';

/** The account's budget alerts, newest first (at most `limit`, 100 by default). */
export async function listBudgetAlerts({
  ctx,
  accountId,
  limit = 100,
}: {
  ctx: Pick<Ctx, 'db'>;
  accountId: string;
  limit?: number;
}): Promise<BudgetAlertRow[]> {
  return ctx.db
    .select()
    .from(budgetAlerts)
    .where(eq(budgetAlerts.accountId, accountId))
    .orderBy(desc(budgetAlerts.createdAt), desc(budgetAlerts.thresholdPercent))
    .limit(Math.min(Math.max(1, limit), 500));
}
