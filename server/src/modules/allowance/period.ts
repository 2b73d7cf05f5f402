/** The monthly allowance period containing `nowMs`: a UTC calendar month. */
export interface AllowancePeriod {
  /** `YYYY-MM-01`, the row key in allowance_periods. */
  start: string;
  /** First instant of the next month, when the allowance resets. */
  resetsAt: Date;
}

export function periodOf(nowMs: number): AllowancePeriod {
  const now = new Date(nowMs);
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  return {
    start: `${year}-${String(month + 1).padStart(2, '0')}-01`,
    resetsAt: new Date(Date.UTC(year, month + 1, 1)),
  };
}
