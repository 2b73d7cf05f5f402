import type { ApiKeyView, CreatedApiKey, RotateKeyInput } from '@tessera/shared';
import { and, eq, sql } from 'drizzle-orm';
import type { Ctx } from '../../context';
import { type ApiKeyRow, apiKeys } from '../../db/schema';
import { ServiceError } from '../../errors';
import { newId } from '../../lib/ids';
import { keyBudgetPeriod } from '../allowance';
import { type AuditContext, recordAudit } from '../audit';
import { generateKey } from './generate';
import { keyState, toKeyView } from './view';

export interface RotatedKey {
  /** The replacement, shown in full this once. */
  key: CreatedApiKey;
  /** The old key, now `rotating` until its `expiresAt`. */
  previous: ApiKeyView;
}

/**
 * Replaces a key: a new key with the same name, kind and settings, while the old one keeps working for the
 * grace period (its `expiresAt` becomes now + grace, or stays earlier if it already expired sooner), then
 * stops everywhere like an expired key. One transaction, the old row locked, so a key is rotated once.
 * A budgeted key's replacement starts with what the old one has used in the current period, so a rotation does
 * not hand out a fresh budget.
 */
export async function rotateKey({
  ctx,
  accountId,
  input,
  onChanged,
  audit,
}: {
  ctx: Pick<Ctx, 'db' | 'clock'>;
  accountId: string;
  input: RotateKeyInput;
  /** Lets the local verifier apply the old key's new expiry at once, before any poll. */
  onChanged?: (row: ApiKeyRow) => void;
  /** Who rotates it: a `key.rotated` event (the old key, its replacement, the grace) in the same transaction. */
  audit?: AuditContext;
}): Promise<RotatedKey> {
  const now = ctx.clock.now();
  const result = await ctx.db.transaction(async (tx) => {
    const [old] = await tx
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.id, input.id), eq(apiKeys.accountId, accountId)))
      .for('update')
      .limit(1);
    if (!old)
      throw new ServiceError('not_found', `No API key with id '${input.id}' in this account.`, {
        param: 'id',
        resource: { kind: 'api_key', id: input.id },
      });
    const state = keyState(old, now);
    if (state !== 'active')
      throw new ServiceError(
        'conflict',
        state === 'rotating'
          ? `This API key was already rotated: its replacement is ${old.replacedById}.`
          : `This API key is ${state}: only an active key can be rotated. Create a new key instead.`,
        { param: 'id', code: 'key_not_active' },
      );
    const generated = generateKey(old.kind);
    const [created] = await tx
      .insert(apiKeys)
      .values({
        id: newId('key'),
        accountId,
        ownerUserId: old.ownerUserId,
        name: old.name,
        kind: old.kind,
        keyHash: generated.hash,
        last4: generated.last4,
        scopes: old.scopes,
        models: old.models,
        expiresAt: old.expiresAt,
        requestsPerMinute: old.requestsPerMinute,
        budgetTokens: old.budgetTokens,
        budgetPeriod: old.budgetPeriod,
        cacheTtlSeconds: old.cacheTtlSeconds,
      })
      .returning();
    if (!created) throw new Error('insert returned no row');
    const graceEnd = new Date(now + input.gracePeriodSeconds * 1000);
    const expiresAt = old.expiresAt && old.expiresAt < graceEnd ? old.expiresAt : graceEnd;
    const [previous] = await tx
      .update(apiKeys)
      .set({ replacedById: created.id, expiresAt, updatedAt: sql`now()` })
      .where(eq(apiKeys.id, old.id))
      .returning();
    if (!previous) throw new Error('update returned no row');
    if (old.budgetPeriod) {
      const period = keyBudgetPeriod(old.budgetPeriod, now);
      await tx.execute(sql`
        insert into key_budget_periods (key_id, period, period_start, used, reserved)
        select ${created.id}, period, period_start, used + reserved, 0 from key_budget_periods
        where key_id = ${old.id} and period = ${old.budgetPeriod} and period_start = ${period.start}`);
    }
    if (audit)
      await recordAudit(tx, audit, {
        accountId,
        action: 'key.rotated',
        target: { type: 'api_key', id: old.id },
        details: {
          name: old.name,
          replacementId: created.id,
          replacementLast4: created.last4,
          gracePeriodSeconds: input.gracePeriodSeconds,
          oldKeyStopsAt: expiresAt.toISOString(),
        },
      });
    return { created, previous, key: generated.key };
  });
  onChanged?.(result.previous);
  return {
    key: { ...toKeyView(result.created, now), key: result.key },
    previous: toKeyView(result.previous, now),
  };
}
