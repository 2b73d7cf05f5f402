export { keyBudgetPeriod } from './key-budget';
export { MonthlyTokenAllowance } from './monthly';
export { type AllowancePeriod, periodOf } from './period';
export { type ReservedOutcome, withReservation } from './reserved-call';
export type { AllowanceStatus, Reservation, TokenAllowance } from './types';
