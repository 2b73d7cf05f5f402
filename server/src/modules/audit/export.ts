import { type AuditEventView, csvLine } from '@tessera/shared';
import { and, count, eq, gte, lt, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Ctx } from '../../context';
import { auditEvents } from '../../db/schema';
import { ServiceError } from '../../errors';
import { invalidParameter } from '../../lib/invalid-parameter';
import { AUDIT_EXPECTED, fromBeforeTo, selectRange, toAuditView } from './list';

/** An export covers at most this much time… */
export const EXPORT_MAX_DAYS = 366;
/** …and at most this many events; a larger range is refused (400), never cut silently. */
export const EXPORT_MAX_ROWS = 100_000;
/** Rows read per query while streaming: memory stays one batch, whatever the export's size. */
const BATCH = 1_000;
const DAY_MS = 86_400_000;

const Instant = z.iso.datetime({ offset: true });

export const AuditExportQuery = z.object({
  format: z.enum(['csv', 'jsonl']).default('csv'),
  from: Instant.optional(),
  to: Instant.optional(),
});

export const CSV_COLUMNS = [
  'created_at',
  'id',
  'action',
  'actor_kind',
  'actor_user_id',
  'actor_email',
  'target_type',
  'target_id',
  'ip',
  'user_agent',
  'details',
] as const;

function csvRow(e: AuditEventView): string {
  return csvLine([
    e.createdAt,
    e.id,
    e.action,
    e.actor.kind,
    e.actor.userId,
    e.actor.email,
    e.target?.type,
    e.target?.id,
    e.ip,
    e.userAgent,
    JSON.stringify(e.details),
  ]);
}

export interface AuditExport {
  format: 'csv' | 'jsonl';
  from: Date;
  to: Date;
  /** The file's chunks, newest event first as the log reads; a batch of rows a chunk. */
  chunks: AsyncGenerator<string>;
}

/**
 * Checks an export's query (format, range: `to` defaults to now, `from` to 30 days before it) and its size
 * before anything is sent, then streams it in batches (keyset, newest first). Bad input or a range over the
 * bounds is a 400 naming the bound, before the first byte.
 */
export async function exportAuditEvents({
  ctx,
  accountId,
  query,
}: {
  ctx: Pick<Ctx, 'db' | 'clock'>;
  accountId: string;
  query: unknown;
}): Promise<AuditExport> {
  const parsed = AuditExportQuery.safeParse(query, { reportInput: true });
  if (!parsed.success) throw invalidParameter(parsed.error.issues[0], { expected: AUDIT_EXPECTED });
  const { format } = parsed.data;
  const to = parsed.data.to ? new Date(parsed.data.to) : new Date(ctx.clock.now());
  const from = parsed.data.from ? new Date(parsed.data.from) : new Date(to.getTime() - 30 * DAY_MS);
  if (from >= to) throw fromBeforeTo();
  if (to.getTime() - from.getTime() > EXPORT_MAX_DAYS * DAY_MS)
    throw new ServiceError(
      'invalid_request',
      `An export covers at most ${EXPORT_MAX_DAYS} days; export a shorter range, several times.`,
      { param: 'from', code: 'export_range_too_large' },
    );
  // Counted up to the bound only (an index range scan stopped at EXPORT_MAX_ROWS + 1), so the check is cheap
  // even for an account with millions of events.
  const within = ctx.db
    .select({ one: sql`1` })
    .from(auditEvents)
    .where(
      and(
        eq(auditEvents.accountId, accountId),
        gte(auditEvents.createdAt, from),
        lt(auditEvents.createdAt, to),
      ),
    )
    .limit(EXPORT_MAX_ROWS + 1)
    .as('within');
  const [counted] = await ctx.db.select({ n: count() }).from(within);
  if ((counted?.n ?? 0) > EXPORT_MAX_ROWS)
    throw new ServiceError(
      'invalid_request',
      `The range holds more than ${EXPORT_MAX_ROWS.toLocaleString('en')} events; export a shorter range, several times.`,
      { param: 'from', code: 'export_too_large' },
    );

  async function* chunks(): AsyncGenerator<string> {
    if (format === 'csv') yield csvLine(CSV_COLUMNS);
    let after: { createdAt: Date; id: number } | null = null;
    for (;;) {
      const rows = await selectRange(ctx.db, accountId, { from, to, after }, BATCH);
      if (rows.length === 0) return;
      yield rows
        .map((row) => {
          const view = toAuditView(row);
          return format === 'csv' ? csvRow(view) : `${JSON.stringify(view)}\n`;
        })
        .join('');
      const last = rows.at(-1);
      if (!last || rows.length < BATCH) return;
      after = { createdAt: last.createdAt, id: last.id };
    }
  }
  return { format, from, to, chunks: chunks() };
}
