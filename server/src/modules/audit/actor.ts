import type { AuditActorKind } from '@tessera/shared';
import type { UserRow } from '../../db/schema';

/** Who acted. `email` is copied into the event, so the log still reads right once the person is gone. */
export interface AuditActor {
  kind: AuditActorKind;
  userId: string | null;
  email: string | null;
}

/** Where the request came from (the transport fills it; modules never see Express). */
export interface AuditRequest {
  ip: string | null;
  userAgent: string | null;
}

/** What a module verb needs to record an event on behalf of its caller. */
export interface AuditContext extends AuditRequest {
  actor: AuditActor;
}

/** The actor behind a dashboard session: THE one place that says who a session is, its user. */
export function sessionActor(user: Pick<UserRow, 'id' | 'email'>): AuditActor {
  return { kind: 'user', userId: user.id, email: user.email };
}

/** The operators' CLI: someone with the server's database credentials, not a dashboard user. */
export const OPERATOR_ACTOR: AuditActor = { kind: 'operator', userId: null, email: null };

/** An audit context for the CLI (no address, no user agent). */
export const OPERATOR_AUDIT: AuditContext = { actor: OPERATOR_ACTOR, ip: null, userAgent: null };
