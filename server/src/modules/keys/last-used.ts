import { sql } from 'drizzle-orm';
import type { Ctx } from '../../context';

/**
 * Coalesces `last_used_at` updates: the request path only records the time in memory; one UPDATE per
 * flush interval writes the latest time of every key used since the previous flush.
 */
export class LastUsedTracker {
  private pending = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ctx: Pick<Ctx, 'db' | 'logger'>,
    private readonly intervalMs = 5_000,
  ) {}

  touch(keyId: string, at: number): void {
    const prev = this.pending.get(keyId);
    if (prev === undefined || prev < at) this.pending.set(keyId, at);
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.flush(), this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    const rows = [...batch].map(([id, at]) => sql`(${id}, ${new Date(at).toISOString()}::timestamptz)`);
    try {
      await this.ctx.db.execute(sql`
        update api_keys set last_used_at = v.at
        from (values ${sql.join(rows, sql`, `)}) as v(id, at)
        where api_keys.id = v.id and (api_keys.last_used_at is null or api_keys.last_used_at < v.at)`);
    } catch (err) {
      // Keep the newest times for the next attempt rather than losing them.
      for (const [id, at] of batch) this.touch(id, at);
      this.ctx.logger.warn({ err: (err as Error).message }, 'last_used_at flush failed; will retry');
    }
  }
}
