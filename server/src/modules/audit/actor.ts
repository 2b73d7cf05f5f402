import type { AuditActorKind } from '@tessera/shared';
import type { AccountRow } from '../../db/schema';
import type { MemberRole } from './access';

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

/**
 * The actor behind a dashboard session: THE one place that says who a session is. Today a session belongs to
 * an account, and the teams migration gives every existing account a user with the same id, so the account's
 * id and email are the user's. After the teams merge this takes the session's user (id and email) instead.
 */
export function sessionActor(account: Pick<AccountRow, 'id' | 'email'>): AuditActor {
  return { kind: 'user', userId: account.id, email: account.email };
}

/** The operators' CLI: someone with the server's database credentials, not a dashboard user. */
export const OPERATOR_ACTOR: AuditActor = { kind: 'operator', userId: null, email: null };

/** An audit context for the CLI (no address, no user agent). */
export const OPERATOR_AUDIT: AuditContext = { actor: OPERATOR_ACTOR, ip: null, userAgent: null };

/**
 * The caller's role in the organisation. Today a session is the account's owner (its only member), and a key
 * without scopes reads the account as its owner does (GraphQL refuses scoped keys before this). The teams merge
 * returns the session user's membership role here.
 */
export function sessionRole(_account: Pick<AccountRow, 'id'>): MemberRole {
  return 'owner';
}
