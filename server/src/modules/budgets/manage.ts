import type { SetSpendBudgetInput, SpendBudget, SpendScope } from '@tessera/shared';
import { and, eq, sql } from 'drizzle-orm';
import type { Ctx } from '../../context';
import { apiKeys, memberships, spendBudgets } from '../../db/schema';
import { ServiceError } from '../../errors';
import { keyBudgetPeriod } from '../allowance';
import { type AuditContext, recordAudit } from '../audit';
import { readSpend } from './statements';

export interface SpendBudgetView {
  scope: SpendScope;
  subjectId: string;
  amountMicros: number;
  period: SpendBudget['period'];
  /** This period's settled spend and the worst case of the calls in flight. */
  usedMicros: number;
  reservedMicros: number;
  periodStart: string;
  resetsAt: string;
}

/**
 * The subject a budget names must be the caller's own: one of the account's live keys (test keys spend
 * nothing), or one of its members. Another account's id gets the answer an unknown id gets.
 */
async function checkSubject(
  ctx: Ctx,
  accountId: string,
  scope: SpendScope,
  subjectId: string,
): Promise<void> {
  if (scope === 'key') {
    const [key] = await ctx.db
      .select({ kind: apiKeys.kind })
      .from(apiKeys)
      .where(and(eq(apiKeys.id, subjectId), eq(apiKeys.accountId, accountId)));
    if (!key)
      throw new ServiceError('not_found', `No API key with id '${subjectId}' in this account.`, {
        param: 'subjectId',
        resource: { kind: 'api_key', id: subjectId },
      });
    if (key.kind === 'test')
      throw new ServiceError(
        'invalid_request',
        'A spend budget applies to live keys only: test keys are served by the simulator and cost nothing.',
        { param: 'subjectId', code: 'invalid_value' },
      );
  } else if (scope === 'member') {
    const [member] = await ctx.db
      .select({ userId: memberships.userId })
      .from(memberships)
      .where(and(eq(memberships.userId, subjectId), eq(memberships.accountId, accountId)));
    if (!member)
      throw new ServiceError('not_found', `No member with id '${subjectId}' in this organisation.`, {
        param: 'subjectId',
      });
  }
}

/** Sets or clears one budget (the organisation's, a key's or a member's), with its audit event. */
export async function setSpendBudget({
  ctx,
  accountId,
  input,
  audit,
}: {
  ctx: Ctx;
  accountId: string;
  input: SetSpendBudgetInput;
  audit?: AuditContext;
}): Promise<SpendBudgetView | null> {
  const subjectId = input.scope === 'account' ? accountId : (input.subjectId ?? '');
  await checkSubject(ctx, accountId, input.scope, subjectId);
  await ctx.db.transaction(async (tx) => {
    const where = and(
      eq(spendBudgets.accountId, accountId),
      eq(spendBudgets.scope, input.scope),
      eq(spendBudgets.subjectId, subjectId),
    );
    if (input.budget === null) {
      const gone = await tx.delete(spendBudgets).where(where).returning({ scope: spendBudgets.scope });
      if (gone.length > 0 && audit)
        await recordAudit(tx, audit, {
          accountId,
          action: 'budget.cleared',
          target: { type: `${input.scope}_budget`, id: subjectId },
        });
      return;
    }
    await tx
      .insert(spendBudgets)
      .values({ accountId, scope: input.scope, subjectId, ...input.budget })
      .onConflictDoUpdate({
        target: [spendBudgets.accountId, spendBudgets.scope, spendBudgets.subjectId],
        set: { ...input.budget, updatedAt: sql`now()` },
      });
    if (audit)
      await recordAudit(tx, audit, {
        accountId,
        action: 'budget.set',
        target: { type: `${input.scope}_budget`, id: subjectId },
        details: { amountMicros: input.budget.amountMicros, period: input.budget.period },
      });
  });
  if (input.budget === null) return null;
  const [view] = (await listSpendBudgets({ ctx, accountId })).filter(
    (b) => b.scope === input.scope && b.subjectId === subjectId,
  );
  return view ?? null;
}

/** The account's budgets with this period's spend, organisation first. */
export async function listSpendBudgets({
  ctx,
  accountId,
}: {
  ctx: Ctx;
  accountId: string;
}): Promise<SpendBudgetView[]> {
  const rows = await ctx.db.select().from(spendBudgets).where(eq(spendBudgets.accountId, accountId));
  const now = ctx.clock.now();
  const order: Record<SpendScope, number> = { account: 0, member: 1, key: 2 };
  rows.sort((a, b) => order[a.scope] - order[b.scope] || a.subjectId.localeCompare(b.subjectId));
  return Promise.all(
    rows.map(async (b) => {
      const period = keyBudgetPeriod(b.period, now);
      const spend = await readSpend(ctx.db, accountId, {
        scope: b.scope,
        subjectId: b.subjectId,
        period: b.period,
        periodStart: period.start,
      });
      return {
        scope: b.scope,
        subjectId: b.subjectId,
        amountMicros: b.amountMicros,
        period: b.period,
        usedMicros: spend.usedMicros,
        reservedMicros: spend.reservedMicros,
        periodStart: period.start,
        resetsAt: period.resetsAt.toISOString(),
      };
    }),
  );
}
