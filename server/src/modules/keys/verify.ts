import { eq, gte, sql } from 'drizzle-orm';
import type { Ctx } from '../../context';
import { type AccountRow, type ApiKeyRow, accounts, apiKeys } from '../../db/schema';
import { ServiceError } from '../../errors';
import { constantTimeEqual } from '../../lib/hash';
import { TtlCache } from '../../lib/ttl-cache';
import type { Principal } from '../../principal';
import { resolveLimits } from '../plans';
import { accessOf } from './access';
import { maskPresentedKey } from './generate';
import { invalidKey, type PresentedKey } from './presented';

interface CachedKey {
  keyHash: string;
  principal: Principal;
}

export interface KeyVerifierOptions {
  /** Entries are re-read from the database after this long even without a change signal. */
  ttlMs?: number;
  maxEntries?: number;
  /** How often revocations and account changes made by other instances are picked up. */
  syncIntervalMs?: number;
}

/**
 * Verifies API keys on the request path. A known key costs a hash and a map lookup, no database read.
 * Revocations made here apply at once (`forget`); those made elsewhere arrive with the next sync poll,
 * which reads keys revoked and accounts changed since the previous poll (default every 500 ms).
 */
export class ApiKeyVerifier {
  /** Verified keys by hash; past the TTL an entry is re-read, and served still while the database is down. */
  private readonly cache: TtlCache<string, CachedKey>;
  /** Hashes just found unknown or revoked: a retried bad key costs no database read for 2 s. */
  private readonly unknown: TtlCache<string, true>;
  private readonly syncIntervalMs: number;
  private timer: NodeJS.Timeout | undefined;
  private syncedUntil: Date | undefined;
  private syncing = false;

  constructor(
    private readonly ctx: Ctx,
    options: KeyVerifierOptions = {},
  ) {
    const max = options.maxEntries ?? 100_000;
    this.cache = new TtlCache({ max, ttlMs: options.ttlMs ?? 5 * 60_000, clock: ctx.clock });
    this.unknown = new TtlCache({ max, ttlMs: 2_000, clock: ctx.clock });
    this.syncIntervalMs = options.syncIntervalMs ?? 500;
  }

  /** The caller of a presented key (presented.ts reads and hashes it): 401 when it is unknown, revoked or expired. */
  async verify({ key, hash: keyHash }: PresentedKey): Promise<Principal> {
    const now = this.ctx.clock.now();

    const cached = this.cache.fresh(keyHash);
    if (cached && constantTimeEqual(cached.keyHash, keyHash)) return unexpired(cached.principal, key, now);
    if (this.unknown.fresh(keyHash)) throw invalidKey(key);

    let row: { key: ApiKeyRow; account: AccountRow } | undefined;
    try {
      [row] = await this.ctx.db
        .select({ key: apiKeys, account: accounts })
        .from(apiKeys)
        .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
        .where(eq(apiKeys.keyHash, keyHash))
        .limit(1);
    } catch (err) {
      // The database is unreachable: an entry past its TTL is still the best answer (no revocation can be
      // committed meanwhile); a key never seen cannot be checked, which is a 503 to retry, not a 500.
      const stale = this.cache.stale(keyHash);
      if (stale && constantTimeEqual(stale.keyHash, keyHash)) return unexpired(stale.principal, key, now);
      throw new ServiceError('unavailable', 'API keys cannot be verified right now. Please retry shortly.', {
        code: 'service_unavailable',
        retryable: true,
        retryAfterMs: 1_000,
        cause: err,
      });
    }
    if (!row || !constantTimeEqual(row.key.keyHash, keyHash)) {
      this.unknown.set(keyHash, true);
      throw invalidKey(key);
    }
    if (row.key.revokedAt) {
      this.unknown.set(keyHash, true);
      throw new ServiceError('authentication', `This API key has been revoked: ${maskPresentedKey(key)}.`, {
        code: 'invalid_api_key',
      });
    }
    const principal: Principal = {
      keyId: row.key.id,
      accountId: row.account.id,
      mode: row.key.kind,
      last4: row.key.last4,
      plan: row.account.plan,
      limits: resolveLimits(row.account, this.ctx.config.planDefaults),
      access: accessOf(row.key),
    };
    // An expired key is cached too: its next requests get the same 401 without a database read.
    this.cache.set(keyHash, { keyHash, principal });
    return unexpired(principal, key, now);
  }

  /** Drops a key at once (called by the instance that revokes it). */
  forget(keyHash: string): void {
    this.cache.delete(keyHash);
  }

  /**
   * Updates the cached keys of an account that changed (plan, limits) in place. Dropping them instead made
   * every poll within the 2 s overlap drop them again, so a just-changed account's keys needed the database
   * on their next request, and failed while it was down.
   */
  private applyAccount(account: AccountRow): void {
    for (const entry of this.cache.values()) {
      if (entry.principal.accountId !== account.id) continue;
      entry.principal = {
        ...entry.principal,
        plan: account.plan,
        limits: resolveLimits(account, this.ctx.config.planDefaults),
      };
    }
  }

  /**
   * Applies a key row that changed (settings edited, rotated, revoked) to its cached entry, if any: a revoked key
   * is dropped; otherwise its restrictions are replaced in place (like accounts, so that the polls within the
   * overlap do not send the key back to the database).
   */
  applyKey(row: ApiKeyRow): void {
    if (row.revokedAt) {
      this.forget(row.keyHash);
      return;
    }
    const entry = this.cache.stale(row.keyHash);
    if (entry) entry.principal = { ...entry.principal, access: accessOf(row) };
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.sync(), this.syncIntervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One poll for changes made by any instance; safe to call directly (tests do). */
  async sync(): Promise<void> {
    if (this.syncing) return;
    this.syncing = true;
    try {
      const [clock] = await this.ctx.db
        .select({ now: sql<string>`now()::text` })
        .from(sql`(select 1) as one`);
      const dbNow = clock ? new Date(clock.now) : new Date(this.ctx.clock.now());
      // Overlap the windows by 2 s so that a transaction committing late is still seen.
      const since = new Date((this.syncedUntil ?? dbNow).getTime() - 2_000);
      // Revocations, edits and rotations all move `updated_at`.
      const changedKeys = await this.ctx.db.select().from(apiKeys).where(gte(apiKeys.updatedAt, since));
      for (const row of changedKeys) this.applyKey(row);
      const changed = await this.ctx.db.select().from(accounts).where(gte(accounts.updatedAt, since));
      for (const account of changed) this.applyAccount(account);
      this.syncedUntil = dbNow;
    } catch (err) {
      this.ctx.logger.warn({ err: (err as Error).message }, 'key sync failed; will retry');
    } finally {
      this.syncing = false;
    }
  }
}

/** The principal, unless its key has expired (its own expiry or the end of a rotation's grace): 401. */
function unexpired(principal: Principal, key: string, now: number): Principal {
  const expiresAt = principal.access?.expiresAt;
  if (expiresAt === null || expiresAt === undefined || now < expiresAt) return principal;
  throw new ServiceError(
    'authentication',
    `This API key expired at ${new Date(expiresAt).toISOString()}: ${maskPresentedKey(key)}. Create a new key in the Tessera dashboard.`,
    { code: 'expired_api_key' },
  );
}
