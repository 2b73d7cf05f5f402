import type { KeyKind, Role } from '@tessera/shared';
import { ServiceError } from '../../errors';
import type { Member } from '../accounts';

/**
 * The one table of what each role may do; every transport (tRPC, GraphQL, the playground's REST routes) asks
 * `authorize` or `authorizeKeyChange`. The roles are nested (owner ⊇ admin ⊇ developer ⊇ viewer), so an
 * action names the least role that may do it.
 */
const ACTIONS = {
  read: { least: 'viewer', what: 'Reading the dashboard' },
  'members.read': { least: 'admin', what: 'Listing members and invitations' },
  'members.manage': { least: 'owner', what: 'Managing members, roles and invitations' },
  'plan.manage': { least: 'owner', what: 'Changing the plan' },
  'sample.remove': { least: 'admin', what: 'Removing the sample data' },
  'playground.use': { least: 'developer', what: 'Using the playground' },
  'keys.create': { least: 'developer', what: 'Creating API keys' },
  'keys.change.test': { least: 'developer', what: 'Changing test keys' },
  /** A developer's own live keys. */
  'keys.change.own': { least: 'developer', what: 'Changing your own live keys' },
  'keys.change.any': { least: 'admin', what: "Changing another member's live keys" },
} as const satisfies Record<string, { least: Role; what: string }>;

export type Action = keyof typeof ACTIONS;

const RANK: Record<Role, number> = { viewer: 0, developer: 1, admin: 2, owner: 3 };

export function can(role: Role, action: Action): boolean {
  return RANK[role] >= RANK[ACTIONS[action].least];
}

/** Refuses with a `permission` error (tRPC/GraphQL FORBIDDEN, REST 403) that names the role needed. */
export function authorize(member: Pick<Member, 'role'>, action: Action): void {
  if (can(member.role, action)) return;
  const { least, what } = ACTIONS[action];
  const needed = least === 'owner' ? 'the owner role' : `the ${least} role or higher`;
  throw new ServiceError('permission', `${what} needs ${needed}; your role here is ${member.role}.`, {
    code: 'permission_denied',
    type: 'permission_denied',
  });
}

/** The action a change of one key is: test keys, the member's own live keys, or anyone's live keys. */
export function keyChangeAction(
  member: Pick<Member, 'userId'>,
  key: { kind: KeyKind; ownerUserId: string | null },
): Action {
  if (key.kind === 'test') return 'keys.change.test';
  return key.ownerUserId === member.userId ? 'keys.change.own' : 'keys.change.any';
}

export function authorizeKeyChange(
  member: Pick<Member, 'userId' | 'role'>,
  key: { kind: KeyKind; ownerUserId: string | null },
): void {
  authorize(member, keyChangeAction(member, key));
}
