import { z } from 'zod';

export const KeyKind = z.enum(['live', 'test']);
export type KeyKind = z.infer<typeof KeyKind>;

/** The endpoints a key may be limited to (a key without scopes may call every endpoint). */
export const KEY_SCOPES = [
  'chat',
  'embeddings',
  'models',
  'code_analysis',
  'search_read',
  'search_write',
] as const;
export const KeyScope = z.enum(KEY_SCOPES);
export type KeyScope = z.infer<typeof KeyScope>;

export const KEY_SCOPE_LABELS: Record<KeyScope, string> = {
  chat: 'Chat completions',
  embeddings: 'Embeddings',
  models: 'Model catalogue',
  code_analysis: 'Code analysis',
  search_read: 'Search (read)',
  search_write: 'Search (write: indexing)',
};

export const BudgetPeriod = z.enum(['day', 'week', 'month']);
export type BudgetPeriod = z.infer<typeof BudgetPeriod>;

export const KeyTokenBudget = z.object({
  tokens: z
    .number({ error: 'The budget is a whole number of tokens' })
    .int({ error: 'The budget is a whole number of tokens' })
    .min(1, { error: 'The budget must be at least 1 token' })
    .max(1_000_000_000_000, { error: 'The budget must be at most 1,000,000,000,000 tokens' }),
  period: BudgetPeriod,
});
export type KeyTokenBudget = z.infer<typeof KeyTokenBudget>;

const KeyName = z
  .string({ error: 'Name is required' })
  .trim()
  .min(1, { error: 'Name is required' })
  .max(64, { error: 'Name must be at most 64 characters' })
  // Postgres text cannot hold NUL: refused here rather than failing in the database.
  .refine((s) => !s.includes('\u0000'), { error: 'Name must not contain NUL characters' });

/**
 * A key's settings. On creation a missing field means "no restriction"; on an edit a missing field is left as it
 * is and `null` removes the restriction.
 */
/** The longest a key may keep answers in the response cache: 30 days. */
export const MAX_CACHE_TTL_SECONDS = 30 * 24 * 3600;

export const KeySettings = z.object({
  scopes: z
    .array(KeyScope)
    .min(1, { error: 'Give at least one scope, or leave scopes out to allow every endpoint' })
    .max(KEY_SCOPES.length)
    .nullable()
    .optional(),
  models: z
    .array(z.string().trim().min(1).max(128))
    .min(1, { error: 'Give at least one model, or leave models out to allow every model' })
    .max(100, { error: 'At most 100 models' })
    .nullable()
    .optional(),
  expiresAt: z.iso
    .datetime({
      offset: true,
      error: 'expiresAt must be an ISO 8601 date and time, such as 2027-01-31T12:00:00Z',
    })
    .nullable()
    .optional(),
  requestsPerMinute: z
    .number({ error: 'requestsPerMinute is a whole number' })
    .int({ error: 'requestsPerMinute is a whole number' })
    .min(1, { error: 'requestsPerMinute must be at least 1' })
    .max(10_000_000)
    .nullable()
    .optional(),
  tokenBudget: KeyTokenBudget.nullable().optional(),
  /**
   * Opt-in response cache (docs/caching.md): how long an identical chat request is answered from the cache, in
   * seconds; null: the key's requests are never cached.
   */
  cacheTtlSeconds: z
    .number({ error: 'cacheTtlSeconds is a whole number of seconds' })
    .int({ error: 'cacheTtlSeconds is a whole number of seconds' })
    .min(1, { error: 'cacheTtlSeconds must be at least 1' })
    .max(MAX_CACHE_TTL_SECONDS, { error: 'cacheTtlSeconds must be at most 30 days (2592000)' })
    .nullable()
    .optional(),
});
export type KeySettings = z.infer<typeof KeySettings>;

export const CreateKeyInput = KeySettings.extend({
  name: KeyName,
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

export const UpdateKeyInput = KeySettings.extend({ id: KeyId, name: KeyName.optional() });
export type UpdateKeyInput = z.input<typeof UpdateKeyInput>;

/** The longest grace period a rotation may give the old key: 30 days. */
export const MAX_ROTATION_GRACE_SECONDS = 30 * 24 * 3600;

export const RotateKeyInput = z.object({
  id: KeyId,
  gracePeriodSeconds: z
    .number({ error: 'gracePeriodSeconds is a whole number of seconds' })
    .int({ error: 'gracePeriodSeconds is a whole number of seconds' })
    .min(0, { error: 'gracePeriodSeconds must be at least 0' })
    .max(MAX_ROTATION_GRACE_SECONDS, { error: 'gracePeriodSeconds must be at most 30 days (2592000)' }),
});
export type RotateKeyInput = z.infer<typeof RotateKeyInput>;

/** active; rotating (replaced, works until `expiresAt`); expired; revoked. */
export const KeyState = z.enum(['active', 'rotating', 'expired', 'revoked']);
export type KeyState = z.infer<typeof KeyState>;

/** A key as listings show it: never the secret, only its masked form. */
export const ApiKeyView = z.object({
  id: z.string(),
  name: z.string(),
  kind: KeyKind,
  masked: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  /** Endpoints the key may call; null: all. */
  scopes: z.array(KeyScope).nullable(),
  /** Models the key may use; null: all. */
  models: z.array(z.string()).nullable(),
  expiresAt: z.string().nullable(),
  /** The key's own request limit, within the plan's; null: only the plan's. */
  requestsPerMinute: z.number().int().nullable(),
  tokenBudget: KeyTokenBudget.nullable(),
  /** How long the key's chat answers are cached, in seconds; null: not cached (the default). */
  cacheTtlSeconds: z.number().int().nullable(),
  state: KeyState,
  /** The key that replaces this one (rotation); while it is `rotating` this one works until `expiresAt`. */
  replacedById: z.string().nullable(),
  /** The member who owns the key (developers change only their own live keys); null: the organisation's. */
  ownerUserId: z.string().nullable(),
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
