import { type CreatedApiKey, CreateKeyInput } from '@tessera/shared';
import type { Ctx } from '../../context';
import { apiKeys } from '../../db/schema';
import { newId } from '../../lib/ids';
import { generateKey } from './generate';
import { toKeyView } from './view';

/** Creates a key for the account; the returned `key` is the only time the full text exists outside the caller. */
export async function createKey({
  ctx,
  accountId,
  input,
}: {
  ctx: Pick<Ctx, 'db'>;
  accountId: string;
  input: CreateKeyInput;
}): Promise<CreatedApiKey> {
  const { name, kind } = CreateKeyInput.parse(input);
  const generated = generateKey(kind);
  const [row] = await ctx.db
    .insert(apiKeys)
    .values({ id: newId('key'), accountId, name, kind, keyHash: generated.hash, last4: generated.last4 })
    .returning();
  if (!row) throw new Error('insert returned no row');
  return { ...toKeyView(row), key: generated.key };
}
