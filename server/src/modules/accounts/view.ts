import type { AccountView } from '@tessera/shared';
import type { AccountRow } from '../../db/schema';
import { type PlanDefaults, resolveLimits } from '../plans';

export function toAccountView(row: AccountRow, defaults: PlanDefaults): AccountView {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    plan: row.plan,
    limits: resolveLimits(row, defaults),
    createdAt: row.createdAt.toISOString(),
  };
}
