import type { Clock } from '../../lib/clock';
import { sha256Hex } from '../../lib/hash';
import type { Logger } from '../../logger';
import type { PgAttemptStore } from './pg-store';
import type { RedisAttemptStore } from './redis-store';
import type { AttemptDecision, AttemptRule } from './rules';
import type { AttemptStore } from './store';

export interface AuthThrottleConfig {
  /** Failed sign-ins of one email: slowed down, never locked out. */
  signInPerEmail: Extract<AttemptRule, { kind: 'backoff' }>;
  /** Sign-in attempts from one client address. */
  signInPerAddress: Extract<AttemptRule, { kind: 'window' }>;
  /** Sign-ups from one client address. */
  signUpPerAddress: Extract<AttemptRule, { kind: 'window' }>;
  /** Prefix of the Redis keys (tests give each server its own). */
  redisPrefix: string;
}

export const DEFAULT_AUTH_THROTTLE: AuthThrottleConfig = {
  // 5 at once, then 1 s, 2 s, 4 s … up to 1 minute between tries: at most ~65 guesses an hour per email
  // (OWASP ASVS 2.2.1 asks for no more than 100), and the owner waits a minute at worst.
  signInPerEmail: {
    kind: 'backoff',
    freeAttempts: 5,
    baseDelayMs: 1_000,
    maxDelayMs: 60_000,
    forgetAfterMs: 15 * 60_000,
  },
  signInPerAddress: { kind: 'window', limit: 100, windowMs: 15 * 60_000 },
  signUpPerAddress: { kind: 'window', limit: 20, windowMs: 60 * 60_000 },
  redisPrefix: 'tessera:auth:',
};

/**
 * Sign-in and sign-up throttling with counters every instance shares: in Redis when it is configured (the rate
 * limiter's connection), otherwise in the database. While Redis is unreachable the database stands in, so the
 * counters stay shared (they restart from what the database holds).
 */
export class AuthThrottle {
  private degraded = false;

  constructor(
    private readonly deps: {
      config: AuthThrottleConfig;
      clock: Clock;
      logger: Logger;
      database: PgAttemptStore;
      redis?: RedisAttemptStore | undefined;
    },
  ) {}

  /** Whether a sign-in from `address` may go on now; counts it if so, whatever its outcome. */
  async signInFromAddress(address: string): Promise<AttemptDecision> {
    return this.take(key('signin-address', address), this.deps.config.signInPerAddress);
  }

  /**
   * Whether a password for `email` may be checked now; counts it if so. The backoff counts wrong passwords
   * only, so the caller asks once nothing but the password can fail the attempt: a sign-in the server could
   * not check (its database down) must not slow the owner down once it is back.
   */
  async signInForEmail(email: string): Promise<AttemptDecision> {
    return this.take(key('signin-email', email), this.deps.config.signInPerEmail);
  }

  /** The right password: the email's backoff starts over. */
  async signInSucceeded(email: string): Promise<void> {
    const k = key('signin-email', email);
    // Both at once: the database being down must not keep the backoff in Redis, where it is counted.
    await Promise.all([this.deps.database.clear(k), this.deps.redis?.clear(k).catch(() => {})]);
  }

  /** Whether a sign-up from `address` may go on now; counts it if so. */
  async signUpAttempt(address: string): Promise<AttemptDecision> {
    return this.take(key('signup-address', address), this.deps.config.signUpPerAddress);
  }

  private async take(k: string, rule: AttemptRule): Promise<AttemptDecision> {
    const now = this.deps.clock.now();
    const store = this.store();
    try {
      return await store.take(k, rule, now);
    } catch (err) {
      if (store === this.deps.database) throw err;
      this.degrade((err as Error).message);
      return this.deps.database.take(k, rule, now);
    }
  }

  private store(): AttemptStore {
    const redis = this.deps.redis;
    if (!redis) return this.deps.database;
    if (redis.ready) {
      if (this.degraded) {
        this.degraded = false;
        this.deps.logger.info('auth throttle: Redis reachable again');
      }
      return redis;
    }
    this.degrade('not connected');
    return this.deps.database;
  }

  private degrade(reason: string): void {
    if (this.degraded) return;
    this.degraded = true;
    this.deps.logger.warn({ reason }, 'auth throttle: Redis unreachable; counting attempts in the database');
  }
}

/** Counters are named by a hash: no email or address is stored or sent to Redis in clear. */
function key(kind: string, value: string): string {
  return `${kind}:${sha256Hex(value)}`;
}
