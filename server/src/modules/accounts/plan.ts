import type { Plan } from '@tessera/shared';
import { eq, sql } from 'drizzle-orm';
import type { Ctx } from '../../context';
import { type AccountRow, accounts } from '../../db/schema';
import { ServiceError } from '../../errors';
import { type AuditContext, recordAudit } from '../audit';

export interface SetPlanInput {
  plan: Plan;
  /** undefined keeps the current value; null clears it back to the plan's default. */
  customRequestsPerMinute?: number | null;
  customMonthlyTokens?: number | null;
}

/** Changes an account's plan or custom limits; instances pick the change up through `updated_at`. */
export async function setPlan({
  ctx,
  accountId,
  input,
  audit,
}: {
  ctx: Pick<Ctx, 'db'>;
  accountId: string;
  input: SetPlanInput;
  /** Who changes it: `plan.changed` with the plan and custom limits before and after, in the same transaction. */
  audit?: AuditContext;
}): Promise<AccountRow> {
  const row = await ctx.db.transaction(async (tx) => {
    const [before] = await tx
      .select()
      .from(accounts)
      .where(eq(accounts.id, accountId))
      .for('update')
      .limit(1);
    if (!before) return undefined;
    const [updated] = await tx
      .update(accounts)
      .set({
        plan: input.plan,
        ...(input.customRequestsPerMinute !== undefined && {
          customRequestsPerMinute: input.customRequestsPerMinute,
        }),
        ...(input.customMonthlyTokens !== undefined && { customMonthlyTokens: input.customMonthlyTokens }),
        updatedAt: sql`now()`,
      })
      .where(eq(accounts.id, accountId))
      .returning();
    if (updated && audit) {
      const limits = (a: AccountRow) => ({
        plan: a.plan,
        customRequestsPerMinute: a.customRequestsPerMinute,
        customMonthlyTokens: a.customMonthlyTokens,
      });
      await recordAudit(tx, audit, {
        accountId,
        action: 'plan.changed',
        target: { type: 'account', id: accountId },
        details: { before: limits(before), after: limits(updated) },
      });
    }
    return updated;
  });
  if (!row) throw new ServiceError('not_found', `No account with id '${accountId}'.`, { param: 'account' });
  return row;
}

export async function findAccount({
  ctx,
  idOrEmail,
}: {
  ctx: Pick<Ctx, 'db'>;
  idOrEmail: string;
}): Promise<AccountRow> {
  const isEmail = idOrEmail.includes('@');
  const where = isEmail
    ? eq(accounts.email, idOrEmail.trim().toLowerCase())
    : eq(accounts.id, idOrEmail.trim());
  const [row] = await ctx.db.select().from(accounts).where(where).limit(1);
  if (!row) throw new ServiceError('not_found', `No account '${idOrEmail}'.`, { param: 'account' });
  return row;
}
