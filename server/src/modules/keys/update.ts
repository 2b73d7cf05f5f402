import { type ApiKeyView, UpdateKeyInput } from '@tessera/shared';
import { and, eq, sql } from 'drizzle-orm';
import type { Ctx } from '../../context';
import { type ApiKeyRow, accounts, apiKeys } from '../../db/schema';
import { ServiceError } from '../../errors';
import { type AuditContext, recordAudit } from '../audit';
import { resolveLimits } from '../plans';
import { keyChanges } from './audit';
import { settingColumns } from './settings';
import { toKeyView } from './view';

/**
 * Edits a key's name and settings: fields left out stay as they are, `null` removes a restriction. Checked as at
 * creation (plan, catalogue, a future expiry). Scoped by account: another account's key id is "not found". A
 * revoked key cannot be edited. The change reaches this instance's cache at once (`onChanged`) and the others
 * with their next sync (it moves `updated_at`).
 */
export async function updateKey({
  ctx,
  accountId,
  input,
  modelExists,
  onChanged,
  audit,
}: {
  ctx: Pick<Ctx, 'db' | 'clock' | 'config'>;
  accountId: string;
  input: UpdateKeyInput;
  modelExists: (id: string) => boolean;
  onChanged?: (row: ApiKeyRow) => void;
  /** Who edits it: a `key.updated` event with each changed field's before and after, in the same transaction. */
  audit?: AuditContext;
}): Promise<ApiKeyView> {
  const { id, name, ...settings } = UpdateKeyInput.parse(input);
  const [found] = await ctx.db
    .select({ key: apiKeys, account: accounts })
    .from(apiKeys)
    .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
    .where(and(eq(apiKeys.id, id), eq(apiKeys.accountId, accountId)))
    .limit(1);
  if (!found)
    throw new ServiceError('not_found', `No API key with id '${id}' in this account.`, {
      param: 'id',
      resource: { kind: 'api_key', id },
    });
  if (found.key.revokedAt)
    throw new ServiceError('conflict', 'This API key is revoked: its settings can no longer be changed.', {
      param: 'id',
      code: 'key_not_active',
    });
  const columns = settingColumns(settings, {
    limits: resolveLimits(found.account, ctx.config.planDefaults),
    kind: found.key.kind,
    modelExists,
    now: ctx.clock.now(),
  });
  const row = await ctx.db.transaction(async (tx) => {
    // Locked, so that `before` is what this edit changed even when two edits race.
    const [before] = await tx
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.id, id), eq(apiKeys.accountId, accountId), sql`${apiKeys.revokedAt} is null`))
      .for('update')
      .limit(1);
    if (!before) return undefined;
    const [updated] = await tx
      .update(apiKeys)
      .set({ ...columns, ...(name !== undefined && { name }), updatedAt: sql`now()` })
      .where(and(eq(apiKeys.id, id), eq(apiKeys.accountId, accountId)))
      .returning();
    if (updated && audit)
      await recordAudit(tx, audit, {
        accountId,
        action: 'key.updated',
        target: { type: 'api_key', id },
        details: { changes: keyChanges(before, updated) },
      });
    return updated;
  });
  if (!row)
    throw new ServiceError('conflict', 'This API key was revoked meanwhile: its settings were not changed.', {
      param: 'id',
      code: 'key_not_active',
    });
  onChanged?.(row);
  return toKeyView(row, ctx.clock.now());
}
