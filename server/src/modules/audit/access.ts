import { ServiceError } from '../../errors';

/** The roles of issue 32's teams (built on another branch); today every account has one member, its owner. */
export type MemberRole = 'owner' | 'admin' | 'developer' | 'viewer';

const AUDIT_READERS: ReadonlySet<MemberRole> = new Set(['owner', 'admin']);

/**
 * Who may read the audit log: THE one check, called by tRPC, GraphQL and the export with the caller's role
 * (`sessionRole` in actor.ts). Refused: 403 / FORBIDDEN `permission_denied`.
 */
export function assertCanReadAudit(role: MemberRole): void {
  if (!AUDIT_READERS.has(role))
    throw new ServiceError(
      'permission',
      "Only the organisation's owners and admins may read the audit log.",
      {
        code: 'permission_denied',
      },
    );
}
