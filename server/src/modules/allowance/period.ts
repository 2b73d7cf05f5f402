/** The monthly allowance period containing `nowMs`: a UTC calendar month. */
export interface AllowancePeriod {
  /** `YYYY-MM-01`, the row key in allowance_periods. */
  start: string;
  /** First instant of the next month, when the allowance resets. */
  resetsAt: Date;
}

/** The last period worked out, with its first instant: every call of a month gets the same frozen answer. */
let last: { startMs: number; period: AllowancePeriod } | undefined;

export function periodOf(nowMs: number): AllowancePeriod {
  if (last && nowMs >= last.startMs && nowMs < last.period.resetsAt.getTime()) return last.period;
  const now = new Date(nowMs);
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  const period = Object.freeze({
    start: `${year}-${String(month + 1).padStart(2, '0')}-01`,
    resetsAt: new Date(Date.UTC(year, month + 1, 1)),
  });
  last = { startMs: Date.UTC(year, month, 1), period };
  return period;
}
