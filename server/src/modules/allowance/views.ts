import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { allowancePeriods } from '../../db/schema';
import type { Clock } from '../../lib/clock';
import { TtlCache } from '../../lib/ttl-cache';
import type { Logger } from '../../logger';
import type { Counters } from './statements';

interface View extends Counters {
  period: string;
  refreshing: boolean;
}

/**
 * The in-memory view of accounts' allowance counters that feeds the token headers. Reads are batched: all
 * the accounts wanting a (re)load in one turn of the event loop share one query, so the database sees at most
 * about one read per second per instance however many accounts are active.
 */
export class AllowanceViews {
  private readonly views: TtlCache<string, View>;
  private queue = new Map<string, Set<string>>();
  private scheduled: Promise<void> | undefined;

  constructor(
    private readonly deps: { db: Db; clock: Clock; logger: Logger },
    options: { ttlMs: number; maxViews: number },
  ) {
    this.views = new TtlCache({ max: options.maxViews, ttlMs: options.ttlMs, clock: deps.clock });
  }

  /** Fresh or stale-while-refreshing counters; waits only for an account not seen this period. */
  async get(accountId: string, period: string): Promise<Counters> {
    const known = this.known(accountId, period);
    if (known) return known;
    await this.load(accountId, period);
    return this.views.stale(accountId) ?? { used: 0, reserved: 0 };
  }

  /**
   * `get` without the wait: the counters if this account's period is known (fresh, or stale with a refresh
   * started), else undefined. The request path's form: no promise made when there is nothing to wait for.
   */
  known(accountId: string, period: string): Counters | undefined {
    const fresh = this.views.fresh(accountId);
    if (fresh && fresh.period === period) return fresh;
    const view = this.views.stale(accountId);
    if (!view || view.period !== period) return undefined;
    if (!view.refreshing) {
      view.refreshing = true;
      this.load(accountId, period).catch((err: unknown) => {
        view.refreshing = false;
        this.deps.logger.warn({ err: (err as Error).message }, 'allowance view refresh failed');
      });
    }
    return view;
  }

  /** Counters just returned by a write of this instance: the freshest there are. */
  remember(accountId: string, period: string, row: Counters): void {
    this.views.set(accountId, {
      period,
      used: Number(row.used),
      reserved: Number(row.reserved),
      refreshing: false,
    });
  }

  private load(accountId: string, period: string): Promise<void> {
    const ids = this.queue.get(period) ?? new Set<string>();
    ids.add(accountId);
    this.queue.set(period, ids);
    this.scheduled ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      // Accounts queued from here on go into the next batch.
      this.scheduled = undefined;
      const batch = this.queue;
      this.queue = new Map();
      return this.flush(batch);
    });
    return this.scheduled;
  }

  private async flush(batch: Map<string, Set<string>>): Promise<void> {
    for (const [period, set] of batch) {
      const ids = [...set];
      for (let i = 0; i < ids.length; i += 1_000) {
        const slice = ids.slice(i, i + 1_000);
        const rows = await this.deps.db
          .select({
            accountId: allowancePeriods.accountId,
            used: allowancePeriods.used,
            reserved: allowancePeriods.reserved,
          })
          .from(allowancePeriods)
          .where(and(eq(allowancePeriods.periodStart, period), inArray(allowancePeriods.accountId, slice)));
        const found = new Map(rows.map((r) => [r.accountId, r]));
        for (const id of slice) this.remember(id, period, found.get(id) ?? { used: 0, reserved: 0 });
      }
    }
  }
}
