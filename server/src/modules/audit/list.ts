import { type AuditAction, type AuditEventView, AuditListInput, type AuditPage } from '@tessera/shared';
import { and, desc, eq, gte, lt, type SQL, sql } from 'drizzle-orm';
import type { Ctx } from '../../context';
import type { Db } from '../../db/client';
import { type AuditEventRow, auditEvents } from '../../db/schema';
import { ServiceError } from '../../errors';
import { invalidParameter } from '../../lib/invalid-parameter';

/** What the arguments must be, in words (lib/invalid-parameter.ts); `action`'s come from its enum. */
export const AUDIT_EXPECTED: Readonly<Record<string, string>> = {
  first: 'an integer between 1 and 100',
  after: 'a cursor from a previous page',
  from: 'an ISO 8601 date and time, such as 2027-01-31T12:00:00Z',
  to: 'an ISO 8601 date and time, such as 2027-01-31T12:00:00Z',
};

/** The range's own check, after both ends parsed: the refine's issue carries the whole input, not one end. */
export function fromBeforeTo(): ServiceError {
  return new ServiceError('invalid_request', "Invalid value for 'from': expected a time before 'to'.", {
    param: 'from',
    code: 'invalid_value',
  });
}

/** A position in the log: the last row's time (milliseconds, as stored) and id, opaque to clients. */
export function encodeCursor(row: Pick<AuditEventRow, 'createdAt' | 'id'>): string {
  return Buffer.from(JSON.stringify([row.createdAt.toISOString(), row.id]), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): { createdAt: Date; id: number } {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    const createdAt = new Date(String(at));
    if (
      typeof at === 'string' &&
      !Number.isNaN(createdAt.getTime()) &&
      Number.isSafeInteger(id) &&
      (id as number) > 0
    )
      return { createdAt, id: id as number };
  } catch {
    // Falls through to the 400 below.
  }
  throw new ServiceError('invalid_request', 'The `after` cursor is not one this API returned.', {
    param: 'after',
    code: 'invalid_cursor',
  });
}

export function toAuditView(row: AuditEventRow): AuditEventView {
  return {
    id: String(row.id),
    action: row.action as AuditAction,
    actor: { kind: row.actorKind, userId: row.actorUserId, email: row.actorEmail },
    target: row.targetType && row.targetId ? { type: row.targetType, id: row.targetId } : null,
    details: row.details,
    ip: row.ip,
    userAgent: row.userAgent,
    createdAt: row.createdAt.toISOString(),
  };
}

export interface AuditRange {
  action?: AuditAction | null;
  /** Inclusive. */
  from?: Date | null;
  /** Exclusive. */
  to?: Date | null;
  after?: { createdAt: Date; id: number } | null;
}

/** The account's events in a range, newest first: keyed by account first, so the index serves every read. */
export function selectRange(db: Db, accountId: string, range: AuditRange, limit: number) {
  const where: SQL[] = [eq(auditEvents.accountId, accountId)];
  if (range.action) where.push(eq(auditEvents.action, range.action));
  if (range.from) where.push(gte(auditEvents.createdAt, range.from));
  if (range.to) where.push(lt(auditEvents.createdAt, range.to));
  if (range.after)
    where.push(
      sql`(${auditEvents.createdAt}, ${auditEvents.id}) < (${range.after.createdAt.toISOString()}::timestamptz, ${range.after.id}::bigint)`,
    );
  return db
    .select()
    .from(auditEvents)
    .where(and(...where))
    .orderBy(desc(auditEvents.createdAt), desc(auditEvents.id))
    .limit(limit);
}

/**
 * One page of the account's audit log, newest first. A cursor only positions the page: the account always
 * comes from the caller, so another account's cursor shows nothing of that account.
 */
export async function listAuditEvents({
  ctx,
  accountId,
  input,
}: {
  ctx: Pick<Ctx, 'db'>;
  accountId: string;
  input: AuditListInput;
}): Promise<AuditPage> {
  const parsed = AuditListInput.safeParse(input, { reportInput: true });
  if (!parsed.success) {
    // tRPC validates before this; GraphQL's arguments arrive here, and bad input is a 400 naming the argument.
    const issue = parsed.error.issues[0];
    if (issue?.code === 'custom' && issue.path[0] === 'from') throw fromBeforeTo();
    throw invalidParameter(issue, { expected: AUDIT_EXPECTED });
  }
  const { first, after, action, from, to } = parsed.data;
  const rows = await selectRange(
    ctx.db,
    accountId,
    {
      action: action ?? null,
      from: from ? new Date(from) : null,
      to: to ? new Date(to) : null,
      after: after ? decodeCursor(after) : null,
    },
    first + 1,
  );
  const page = rows.slice(0, first);
  const events = page.map((row) => ({ ...toAuditView(row), cursor: encodeCursor(row) }));
  return {
    events,
    pageInfo: { hasNextPage: rows.length > first, endCursor: events.at(-1)?.cursor ?? null },
  };
}
