import type { KeyKind, Plan, PlanLimits } from '@tessera/shared';

/** Who is calling, as the request path sees it once a key is verified. */
export interface Principal {
  keyId: string;
  accountId: string;
  /** live or test: limits and usage are kept apart per mode. */
  mode: KeyKind;
  last4: string;
  plan: Plan;
  limits: PlanLimits;
}
