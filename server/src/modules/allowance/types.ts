import type { Principal } from '../../principal';

/** Tokens held for one model call until its real usage is known. */
export interface Reservation {
  readonly tokens: number;
  /** Replaces the reservation by the real usage (finished, failed or aborted calls alike). Idempotent. */
  settle(usedTokens: number): Promise<void>;
}

/**
 * The monthly token allowance. Live keys reserve the prompt tokens plus the completion cap before a model
 * call and settle to the real usage after it; test keys never consume it.
 */
export interface TokenAllowance {
  /** Throws ServiceError `insufficient_quota` when the reservation does not fit. */
  reserve(principal: Principal, tokens: number): Promise<Reservation>;
  /**
   * Used and limit for the current period, for headers and the dashboard: at once (no promise) when it comes
   * from memory, as it does on the request path.
   */
  status(principal: Principal): AllowanceStatus | Promise<AllowanceStatus>;
}

export interface AllowanceStatus {
  limit: number;
  used: number;
  remaining: number;
  /** When the monthly period ends (UTC, first day of next month). */
  resetsAt: Date;
}
