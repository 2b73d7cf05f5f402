import { type CreatedApiKey, CreateKeyInput } from '@tessera/shared';
import { eq } from 'drizzle-orm';
import type { Ctx } from '../../context';
import { accounts, apiKeys } from '../../db/schema';
import { newId } from '../../lib/ids';
import { type AuditContext, recordAudit } from '../audit';
import { resolveLimits } from '../plans';
import { keySnapshot } from './audit';
import { generateKey } from './generate';
import { settingColumns } from './settings';
import { toKeyView } from './view';

/** Creates a key for the account; the returned `key` is the only time the full text exists outside the caller. */
export async function createKey({
  ctx,
  accountId,
  ownerUserId = null,
  input,
  modelExists,
  audit,
}: {
  ctx: Pick<Ctx, 'db' | 'clock' | 'config'>;
  accountId: string;
  /** The member creating the key; null for the operators' CLI and the demo seed (the organisation's key). */
  ownerUserId?: string | null;
  input: CreateKeyInput;
  /** The catalogue's check for `models`; required when the input limits the key to models. */
  modelExists?: (id: string) => boolean;
  /** Who creates it: a `key.created` event is written in the insert's transaction. */
  audit?: AuditContext;
}): Promise<CreatedApiKey> {
  const { name, kind, ...settings } = CreateKeyInput.parse(input);
  const hasSettings = Object.values(settings).some((v) => v !== undefined && v !== null);
  let columns = {};
  if (hasSettings) {
    const [account] = await ctx.db.select().from(accounts).where(eq(accounts.id, accountId)).limit(1);
    if (!account) throw new Error(`createKey: no account ${accountId}`);
    if (settings.models && !modelExists) throw new Error('createKey: models given without a catalogue');
    columns = settingColumns(settings, {
      limits: resolveLimits(account, ctx.config.planDefaults),
      kind,
      modelExists: modelExists ?? (() => false),
      now: ctx.clock.now(),
    });
  }
  const generated = generateKey(kind);
  const row = await ctx.db.transaction(async (tx) => {
    const [inserted] = await tx
      .insert(apiKeys)
      .values({
        id: newId('key'),
        accountId,
        ownerUserId,
        name,
        kind,
        keyHash: generated.hash,
        last4: generated.last4,
        ...columns,
      })
      .returning();
    if (!inserted) throw new Error('insert returned no row');
    if (audit)
      await recordAudit(tx, audit, {
        accountId,
        action: 'key.created',
        target: { type: 'api_key', id: inserted.id },
        details: keySnapshot(inserted),
      });
    return inserted;
  });
  return { ...toKeyView(row, ctx.clock.now()), key: generated.key };
}
