import { can, ROLE_ACTIONS, type Role, type RoleAction, refusalOf } from '@tessera/shared';
import { createContext, type ReactNode, useContext, useMemo } from 'react';

export interface RoleInfo {
  role: Role;
  userId: string;
  /** Whether the role may do `action` (the same table the server enforces: shared/src/teams.ts). */
  can: (action: RoleAction) => boolean;
  /** Why not, naming the role needed: shown beside a disabled or hidden control. */
  reason: (action: RoleAction) => string;
  /** "Needs the admin role": short enough for a table cell. */
  short: (action: RoleAction) => string;
}

function infoOf(role: Role, userId: string): RoleInfo {
  return {
    role,
    userId,
    can: (action) => can(role, action),
    reason: (action) => refusalOf(role, action),
    short: (action) => `Needs the ${ROLE_ACTIONS[action].least} role`,
  };
}

// Without a provider (a page rendered on its own in a test) every control shows; the server decides anyway.
const RoleContext = createContext<RoleInfo>(infoOf('owner', ''));

export function RoleProvider({
  role,
  userId,
  children,
}: {
  role: Role;
  userId: string;
  children: ReactNode;
}) {
  const value = useMemo(() => infoOf(role, userId), [role, userId]);
  return <RoleContext.Provider value={value}>{children}</RoleContext.Provider>;
}

export function useRole(): RoleInfo {
  return useContext(RoleContext);
}
