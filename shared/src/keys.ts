import { z } from 'zod';

export const KeyKind = z.enum(['live', 'test']);
export type KeyKind = z.infer<typeof KeyKind>;

export const CreateKeyInput = z.object({
  name: z
    .string({ error: 'Name is required' })
    .trim()
    .min(1, { error: 'Name is required' })
    .max(64, { error: 'Name must be at most 64 characters' }),
  kind: KeyKind.default('test'),
});
export type CreateKeyInput = z.input<typeof CreateKeyInput>;

/** A key's id (`key_…`): printable ASCII, so that nothing a database cannot store (NUL) reaches a query. */
export const KeyId = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[!-~]+$/, { error: 'A key id is printable ASCII without spaces, such as key_…' });
export type KeyId = z.infer<typeof KeyId>;

export const RevokeKeyInput = z.object({ id: KeyId });
export type RevokeKeyInput = z.infer<typeof RevokeKeyInput>;

/** A key as listings show it: never the secret, only its masked form. */
export const ApiKeyView = z.object({
  id: z.string(),
  name: z.string(),
  kind: KeyKind,
  masked: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
});
export type ApiKeyView = z.infer<typeof ApiKeyView>;

/** Returned once, at creation: the only time the full key is shown. */
export const CreatedApiKey = ApiKeyView.extend({ key: z.string() });
export type CreatedApiKey = z.infer<typeof CreatedApiKey>;

export const KEY_PREFIXES: Record<KeyKind, string> = { live: 'sk_live_', test: 'sk_test_' };

/** `sk_live_…a1b2`: the kind's prefix and the last four characters. */
export function maskKey(kind: KeyKind, last4: string): string {
  return `${KEY_PREFIXES[kind]}…${last4}`;
}
