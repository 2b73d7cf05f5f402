export { keyBudgetPeriod } from './key-budget';
export { MonthlyTokenAllowance } from './monthly';
export { type AllowancePeriod, periodOf } from './period';
export type { AllowanceStatus, Reservation, TokenAllowance } from './types';
