import { can, type KeyKind, keyChangeAction, type RoleAction, refusalOf } from '@tessera/shared';
import { ServiceError } from '../../errors';
import type { Member } from '../accounts';

/**
 * What each role may do is one table, `ROLE_ACTIONS` in shared/src/teams.ts (the dashboard reads it too, to hide
 * what a role cannot use); every transport (tRPC, GraphQL, the playground's REST routes) asks these two.
 */
export type Action = RoleAction;
export { can };

/** Refuses with a `permission` error (tRPC/GraphQL FORBIDDEN, REST 403 permission_denied) naming the role needed. */
export function authorize(member: Pick<Member, 'role'>, action: Action): void {
  if (can(member.role, action)) return;
  throw new ServiceError('permission', refusalOf(member.role, action), {
    code: 'permission_denied',
    type: 'permission_denied',
  });
}

/** Test keys, the member's own live keys, or anyone's live keys: see `keyChangeAction`. */
export function authorizeKeyChange(
  member: Pick<Member, 'userId' | 'role'>,
  key: { kind: KeyKind; ownerUserId: string | null },
): void {
  authorize(member, keyChangeAction(member.userId, key));
}
