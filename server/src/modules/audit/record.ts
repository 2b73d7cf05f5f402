import type { AuditAction } from '@tessera/shared';
import type { Db } from '../../db/client';
import { auditEvents } from '../../db/schema';
import type { AuditContext } from './actor';

export const USER_AGENT_MAX = 256;
const IP_MAX = 64;
/** A details value longer than this is cut: details are settings, never documents. */
const DETAIL_STRING_MAX = 512;

/**
 * Field names that may hold a secret. Callers pass settings, not secrets; this is the second line of defence:
 * such a field is dropped, at any depth, whatever the caller passed.
 */
const SECRET_FIELD = /(^|_)(key|secret|password|token|hash|cookie|authorization|session)$/i;
const SECRET_FIELD_CAMEL = /[a-z](Key|Secret|Password|Token|Hash|Cookie|Session)$/;

/** Postgres text and jsonb cannot hold NUL: a user agent with one must not turn a sign-in into a 500. */
function text(value: string, max: number): string {
  const cleaned = value.replaceAll('\u0000', '');
  return cleaned.length > max ? cleaned.slice(0, max) : cleaned;
}

/** Drops secret-looking fields and bounds strings and depth, so details stay small settings records. */
export function scrubDetails(value: unknown, depth = 0): unknown {
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'string') return text(value, DETAIL_STRING_MAX);
  if (value instanceof Date) return value.toISOString();
  if (depth >= 4) return null;
  if (Array.isArray(value)) return value.slice(0, 100).map((v) => scrubDetails(v, depth + 1));
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined || SECRET_FIELD.test(k) || SECRET_FIELD_CAMEL.test(k)) continue;
      out[text(k, 64)] = scrubDetails(v, depth + 1);
    }
    return out;
  }
  return null;
}

export interface AuditEventInput {
  accountId: string;
  action: AuditAction;
  target?: { type: string; id: string } | null;
  details?: Record<string, unknown>;
}

/**
 * Appends one event. Pass the transaction of the change it records, so that both commit or neither does (a key
 * created without its event, or an event for a change that failed, cannot happen).
 */
export async function recordAudit(db: Db, audit: AuditContext, event: AuditEventInput): Promise<void> {
  await db.insert(auditEvents).values({
    accountId: event.accountId,
    actorKind: audit.actor.kind,
    actorUserId: audit.actor.userId,
    actorEmail: audit.actor.email,
    action: event.action,
    targetType: event.target?.type ?? null,
    targetId: event.target?.id ?? null,
    details: scrubDetails(event.details ?? {}) as Record<string, unknown>,
    ip: audit.ip ? text(audit.ip, IP_MAX) : null,
    userAgent: audit.userAgent ? text(audit.userAgent, USER_AGENT_MAX) : null,
  });
}
