/** The monthly allowance period containing `nowMs`: a UTC calendar month. */
export interface AllowancePeriod {
  /** `YYYY-MM-01`, the row key in allowance_periods. */
  start: string;
  /** First instant of the next month, when the allowance resets. */
  resetsAt: Date;
}

/** The last period worked out and when it began: every call of a month gets the same frozen answer. */
let last: { fromMs: number; period: AllowancePeriod } | undefined;

export function periodOf(nowMs: number): AllowancePeriod {
  if (last && nowMs >= last.fromMs && nowMs < last.period.resetsAt.getTime()) return last.period;
  const period = computePeriod(nowMs);
  const start = new Date(`${period.start}T00:00:00Z`).getTime();
  last = { fromMs: start, period: Object.freeze(period) };
  return period;
}

function computePeriod(nowMs: number): AllowancePeriod {
  const now = new Date(nowMs);
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  return {
    start: `${year}-${String(month + 1).padStart(2, '0')}-01`,
    resetsAt: new Date(Date.UTC(year, month + 1, 1)),
  };
}
