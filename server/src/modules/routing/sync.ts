import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Logger } from '../../logger';
import type { DeploymentRouter, RoutingSync, SharedRoutingEvent } from './router';

export interface RedisRoutingSyncOptions {
  url: string;
  commandTimeoutMs: number;
  /** Key and channel prefix. */
  prefix?: string;
}

/**
 * The probe's lease: taken when free (or renewed when this instance holds it), else the ms left of the holder's.
 * KEYS[1] the lease; ARGV[1] this instance's id, ARGV[2] the lease's length in ms.
 */
const ACQUIRE_PROBE = `
local holder = redis.call('GET', KEYS[1])
if not holder or holder == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', tonumber(ARGV[2]))
  return 0
end
local left = redis.call('PTTL', KEYS[1])
if left < 1 then return 1 end
return left
`;

/** Lets the lease go only if this instance still holds it (it may have run out and been taken since). */
const RELEASE_PROBE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0
`;

interface Message extends SharedRoutingEvent {
  /** The instance that sent it: its own messages come back to it and are skipped. */
  from: string;
}

/**
 * Deployments' breakers and 429 rests shared by every instance through Redis (README.md): a change is published
 * on one channel and kept under a key that expires with it (`<prefix>:<model>:<deployment>`), so that an instance
 * starting later, or one whose subscription was down, reads what is in force. Nothing of this is on a call's path:
 * a change is sent when it happens (rare: a breaker opening or closing, an upstream's 429), and applied to the
 * router's in-process state when it arrives; every decision stays the in-process one. Redis down: publishing
 * fails (logged), each instance keeps deciding from what it sees itself, and ioredis reconnects and resubscribes
 * in the background.
 */
export class RedisRoutingSync implements RoutingSync {
  private readonly client: Redis;
  private readonly subscriber: Redis;
  private readonly id = randomUUID();
  private readonly prefix: string;
  private readonly channel: string;
  private readonly commandTimeoutMs: number;
  private failing = false;

  constructor(
    options: RedisRoutingSyncOptions,
    private readonly router: DeploymentRouter,
    private readonly logger: Logger,
  ) {
    this.prefix = options.prefix ?? 'tessera:routing';
    this.channel = `${this.prefix}:events`;
    this.commandTimeoutMs = options.commandTimeoutMs;
    const connection = {
      commandTimeout: options.commandTimeoutMs * 10,
      connectTimeout: Math.max(1_000, options.commandTimeoutMs),
      maxRetriesPerRequest: 0,
      retryStrategy: (attempt: number) => Math.min(100 * attempt, 1_000),
      lazyConnect: true,
    };
    this.client = new Redis(options.url, { ...connection, enableOfflineQueue: false });
    this.subscriber = new Redis(options.url, connection);
    // Without listeners ioredis prints each connection error; the failures that matter are logged on use.
    this.client.on('error', () => {});
    this.subscriber.on('error', () => {});
    this.subscriber.on('message', (_channel: string, text: string) => this.received(text));
    // A (re)connected subscriber catches up with what was published while it was away.
    this.subscriber.on('ready', () => void this.catchUp());
  }

  /** Connects and subscribes; never throws (without Redis, each instance decides alone). */
  async start(): Promise<void> {
    try {
      await Promise.all([this.client.connect(), this.subscriber.connect()]);
      await this.subscriber.subscribe(this.channel);
      await this.catchUp();
    } catch (err) {
      this.warn(err, 'could not subscribe to shared routing state; deciding from this instance alone');
    }
  }

  publish(event: SharedRoutingEvent): void {
    const message: Message = { ...event, from: this.id };
    const text = JSON.stringify(message);
    const key = this.keyOf(event.model, event.deployment);
    const ttl = Math.ceil(event.until - Date.now());
    const pipeline = this.client.multi();
    if (event.kind === 'closed' || ttl <= 0) pipeline.del(key);
    else pipeline.set(key, text, 'PX', ttl);
    pipeline.publish(this.channel, text);
    pipeline.exec().then(
      () => {
        this.failing = false;
      },
      (err: unknown) =>
        this.warn(err, 'could not share a deployment state change; other instances find out alone'),
    );
  }

  /**
   * One probe per deployment per cooldown across instances: after a shared breaker's cooldown, the first instance
   * to take the lease (`<prefix>-probe:<model>:<deployment>`, lasting the cooldown) probes; the others leave the
   * deployment out until the lease ends, by when the probe has closed the breaker everywhere or reopened it. The
   * lease is let go when the probe answers or says nothing (the client left); a failed probe's runs out with the
   * new cooldown. Redis unreachable or slow (past the command timeout): 0, this instance probes for itself.
   */
  async acquireProbe(model: string, deployment: string, ttlMs: number): Promise<number> {
    if (this.client.status !== 'ready') return 0;
    let timer: NodeJS.Timeout | undefined;
    try {
      const reply = await Promise.race([
        this.client.eval(ACQUIRE_PROBE, 1, this.probeKey(model, deployment), this.id, Math.max(1, ttlMs)),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('Redis did not answer in time')), this.commandTimeoutMs);
        }),
      ]);
      this.failing = false;
      return Number(reply) || 0;
    } catch (err) {
      this.warn(err, "could not take a probe's lease; this instance probes for itself");
      return 0;
    } finally {
      clearTimeout(timer);
    }
  }

  releaseProbe(model: string, deployment: string): void {
    if (this.client.status !== 'ready') return;
    this.client.eval(RELEASE_PROBE, 1, this.probeKey(model, deployment), this.id).catch((err: unknown) => {
      // Not let go: it runs out with the cooldown, as a failed probe's does.
      this.warn(err, "could not let a probe's lease go");
    });
  }

  private probeKey(model: string, deployment: string): string {
    return `${this.prefix}-probe:${model}:${deployment}`;
  }

  /** What is in force now, as kept under the deployments' keys. */
  private async catchUp(): Promise<void> {
    const pairs = [...this.router.pairs()];
    if (pairs.length === 0 || this.client.status !== 'ready') return;
    try {
      const values = await this.client.mget(...pairs.map((p) => this.keyOf(p.model, p.deployment)));
      for (const text of values) if (text) this.received(text);
    } catch (err) {
      this.warn(err, 'could not read shared routing state');
    }
  }

  private received(text: string): void {
    let message: Message;
    try {
      message = JSON.parse(text) as Message;
    } catch {
      return;
    }
    if (
      message.from === this.id ||
      typeof message.model !== 'string' ||
      typeof message.deployment !== 'string'
    )
      return;
    if (!['opened', 'closed', 'rested'].includes(message.kind) || !Number.isFinite(message.until)) return;
    this.router.applyShared(message);
  }

  private keyOf(model: string, deployment: string): string {
    return `${this.prefix}:${model}:${deployment}`;
  }

  /** Once per outage, not once per change. */
  private warn(err: unknown, message: string): void {
    if (this.failing) return;
    this.failing = true;
    this.logger.warn({ err: (err as Error).message }, message);
  }

  async close(): Promise<void> {
    this.client.disconnect();
    this.subscriber.disconnect();
  }
}
