import type { Request } from 'express';
import type { UserRow } from '../db/schema';
import { type AuditContext, type AuditRequest, sessionActor } from '../modules/audit';

/** The client's address (as `trust proxy` resolves it) and user agent, for the audit log. */
export function auditRequestOf(req: Request): AuditRequest {
  return { ip: req.ip ?? null, userAgent: req.get('user-agent') ?? null };
}

/** A dashboard request's audit context: the session's actor, from where it came. */
export function sessionAudit(req: Request, user: Pick<UserRow, 'id' | 'email'>): AuditContext {
  return { actor: sessionActor(user), ...auditRequestOf(req) };
}
