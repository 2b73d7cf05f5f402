import type { Principal } from '../../principal';

/** Money held for one model call until its real cost is known (modules/budgets). */
export interface SpendHold {
  /** Replaces the hold by the call's real cost in micro-units. Idempotent; never throws (a failure is logged). */
  settle(costMicros: number): Promise<void>;
}

/**
 * Money budgets as a metered call sees them: reserve the call's worst-case cost before it (a 429 when a budget
 * of the key, its member or the organisation cannot take it), settle to the real cost after it.
 */
export interface SpendReserver {
  /** Undefined when no budget applies (test keys, no budget, an unpriced model). */
  reserve(principal: Principal, maxMicros: number | null): Promise<SpendHold | undefined>;
}
