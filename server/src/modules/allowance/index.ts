export type { AllowanceStatus, Reservation, TokenAllowance } from './types';
export { UnlimitedAllowance } from './unlimited';
