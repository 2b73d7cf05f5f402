import type { Redis } from 'ioredis';
import { ATTEMPT_LUA } from './redis-script';
import type { AttemptDecision, AttemptRule } from './rules';
import type { AttemptStore } from './store';

interface AttemptCommand {
  tesseraAttempt(key: string, ...args: (string | number)[]): Promise<[number, number]>;
}

/**
 * Counters in Redis, on the rate limiter's connection (one EVALSHA an attempt, atomic), shared by every
 * instance on that Redis. Fails fast like the limiter: no offline queue, no retries (the caller falls back).
 */
export class RedisAttemptStore implements AttemptStore {
  private readonly client: Redis & AttemptCommand;

  constructor(
    client: Redis,
    private readonly prefix = 'tessera:auth:',
  ) {
    this.client = client as Redis & AttemptCommand;
    this.client.defineCommand('tesseraAttempt', { numberOfKeys: 1, lua: ATTEMPT_LUA });
  }

  get ready(): boolean {
    return this.client.status === 'ready';
  }

  async take(key: string, rule: AttemptRule, nowMs: number): Promise<AttemptDecision> {
    const args =
      rule.kind === 'window'
        ? [rule.limit, rule.windowMs]
        : [rule.freeAttempts, rule.baseDelayMs, rule.maxDelayMs, rule.forgetAfterMs];
    const [allowed, retryAfterMs] = await this.client.tesseraAttempt(
      this.prefix + key,
      Math.round(nowMs),
      rule.kind,
      ...args,
    );
    return { allowed: allowed === 1, retryAfterMs: Number(retryAfterMs) };
  }

  async clear(key: string): Promise<void> {
    await this.client.del(this.prefix + key);
  }
}
