import { sql } from 'drizzle-orm';
import { type Agent, fetch } from 'undici';
import type { Ctx } from '../../context';
import { rowsOf } from '../../db/rows';
import { literalAddressRefusal, webhookAgent } from './addresses';
import type { SecretBox } from './secret-box';
import { SIGNATURE_HEADER, signPayload } from './sign';

export interface DispatcherOptions {
  /** How often each instance looks for due deliveries (a raised alert also wakes it at once). */
  pollMs: number;
  /** The first retry waits this long, each next one twice as long (capped at an hour). */
  retryBaseMs: number;
  /** After this many failed attempts a delivery stays `failed`. */
  maxAttempts: number;
  /** One POST's time limit. */
  timeoutMs: number;
  /** At most this many deliveries a turn. */
  batch?: number;
  /** Whether loopback, private and other non-public addresses may receive deliveries (addresses.ts). */
  allowPrivate: boolean;
}

interface DueRow {
  id: string;
  account_id: string;
  event_type: string;
  payload: string;
  url: string;
  attempts: number;
  secret: string | null;
}

const MAX_BACKOFF_MS = 3_600_000;
const ERROR_MAX = 500;

/**
 * Delivers queued webhook events (webhook_deliveries) on every instance. A turn claims due rows with
 * `FOR UPDATE SKIP LOCKED` and pushes their next attempt past the POST's time limit before sending, so two
 * instances never send one row at once and a row whose instance died mid-send is retried after that time: the
 * rows are the queue, so a restart loses nothing (at least once; receivers dedupe on the event id).
 */
export class WebhookDispatcher {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = true;
  private readonly agent: Agent;

  constructor(
    private readonly ctx: Ctx,
    private readonly box: SecretBox,
    private readonly options: DispatcherOptions,
  ) {
    this.agent = webhookAgent(options.allowPrivate);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.timer = setInterval(() => this.wake(), this.options.pollMs);
    this.timer.unref();
    this.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
    await this.agent.close().catch(() => undefined);
  }

  /** Runs a turn now (or right after the one under way). */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.turn()
      .then(() => undefined)
      .catch((err: unknown) =>
        this.ctx.logger.warn({ err: (err as Error).message }, 'webhook delivery turn failed; will retry'),
      )
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  /** One turn: claims the due deliveries and sends them; returns how many were attempted. */
  async turn(): Promise<number> {
    const claimMs = this.options.timeoutMs + 5_000;
    const due = rowsOf<DueRow>(
      await this.ctx.db.execute(sql`
        with due as (
          select id from webhook_deliveries
          where status = 'pending' and next_attempt_at <= now()
          order by next_attempt_at limit ${this.options.batch ?? 20}
          for update skip locked
        )
        update webhook_deliveries d set next_attempt_at = now() + ${claimMs} * interval '1 millisecond'
        from due where d.id = due.id
        returning d.id, d.account_id, d.event_type, d.payload, d.url, d.attempts,
          (select secret from webhook_endpoints e where e.account_id = d.account_id) as secret`),
    );
    await Promise.all(due.map((row) => this.attempt(row)));
    return due.length;
  }

  private async attempt(row: DueRow): Promise<void> {
    const attempts = row.attempts + 1;
    let status: number | null = null;
    let error: string | null = null;
    if (row.secret === null) {
      error = 'The webhook was removed before this event could be delivered.';
      await this.record(row.id, { attempts, status, error, final: true });
      return;
    }
    try {
      // A literal address is connected to without a lookup, so the agent's check never sees it.
      const refused = this.options.allowPrivate ? undefined : literalAddressRefusal(row.url);
      if (refused) {
        await this.record(row.id, { attempts, status, error: refused, final: true });
        return;
      }
      const secret = this.box.open(row.secret);
      const t = Math.floor(this.ctx.clock.now() / 1000);
      const res = await fetch(row.url, {
        dispatcher: this.agent,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Tessera-Webhooks/1',
          'x-tessera-event': row.event_type,
          'x-tessera-delivery': row.id,
          [SIGNATURE_HEADER]: signPayload(secret, row.payload, t),
        },
        body: row.payload,
        redirect: 'manual',
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      status = res.status;
      // The receiver's body is not needed; reading it frees the connection.
      await res.arrayBuffer().catch(() => undefined);
      if (res.ok) {
        await this.record(row.id, { attempts, status, error: null, delivered: true });
        return;
      }
      error = `The endpoint answered ${res.status}${res.statusText ? ` ${res.statusText}` : ''}.`;
    } catch (err) {
      const cause = (err as { cause?: { message?: string } }).cause?.message;
      error = (
        (err as Error).name === 'TimeoutError'
          ? `No answer within ${this.options.timeoutMs} ms.`
          : `${(err as Error).message}${cause ? `: ${cause}` : ''}`
      ).slice(0, ERROR_MAX);
    }
    await this.record(row.id, { attempts, status, error, final: attempts >= this.options.maxAttempts });
  }

  private async record(
    id: string,
    r: {
      attempts: number;
      status: number | null;
      error: string | null;
      delivered?: boolean;
      final?: boolean;
    },
  ): Promise<void> {
    const state = r.delivered ? 'delivered' : r.final ? 'failed' : 'pending';
    const backoffMs = Math.min(MAX_BACKOFF_MS, this.options.retryBaseMs * 2 ** (r.attempts - 1));
    await this.ctx.db.execute(sql`
      update webhook_deliveries
      set status = ${state}, attempts = ${r.attempts}, last_attempt_at = now(), last_status_code = ${r.status},
        last_error = ${r.error}, delivered_at = ${r.delivered ? sql`now()` : null},
        next_attempt_at = now() + ${backoffMs} * interval '1 millisecond'
      where id = ${id}`);
    if (!r.delivered)
      this.ctx.logger.warn(
        { deliveryId: id, attempts: r.attempts, state, error: r.error },
        'webhook delivery failed',
      );
  }
}
