export type { AccountLimitFields, PlanDefaults } from './limits';
export { resolveLimits } from './limits';
