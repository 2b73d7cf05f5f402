import type { KeyKind, KeyScope, KeyTokenBudget, Plan, PlanLimits } from '@tessera/shared';

// Who is calling, once a key is verified: made by modules/keys, read by allowance, rate limits, chat and metering.
// A leaf of types, so that the modules reading it need not import the keys module (which imports theirs).

/** A key's own restrictions, as the request path checks them (from the key cache, no database read). */
export interface KeyAccess {
  /** Endpoints the key may call; null: all. */
  scopes: ReadonlySet<KeyScope> | null;
  /** Models the key may use; null: all. */
  models: ReadonlySet<string> | null;
  /** Epoch ms after which the key is refused (expiry, or the end of a rotation's grace); null: never. */
  expiresAt: number | null;
  /** The key's own requests per minute, checked with the account's; null: only the account's. */
  requestsPerMinute: number | null;
  /**
   * The key whose per-minute bucket this key's requests count in: its own, or, once rotated, its replacement's,
   * so that the old and the new key together stay within the limit during the grace period.
   */
  rateBucketKeyId?: string;
  tokenBudget: KeyTokenBudget | null;
  /** Opt-in response cache: how long the key's chat answers are reused, in seconds; null or absent: never. */
  cacheTtlSeconds?: number | null;
  /** The member who owns the key (their spend budget binds it too); null for operators' keys. */
  ownerUserId?: string | null;
}

/** Who is calling, as the request path sees it once a key is verified. */
export interface Principal {
  keyId: string;
  accountId: string;
  /** live or test: limits and usage are kept apart per mode. */
  mode: KeyKind;
  last4: string;
  plan: Plan;
  limits: PlanLimits;
  /** Absent for callers that are not a key (the dashboard's playground): no restriction. */
  access?: KeyAccess;
}
