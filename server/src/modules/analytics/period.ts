import { ServiceError } from '../../errors';
import { GRANULARITY_MS, type Granularity } from '../usage';

export type PeriodPreset = 'last_1h' | 'last_24h' | 'last_7d' | 'last_30d' | 'custom';

export interface PeriodInput {
  preset: PeriodPreset;
  /** Only with `custom`. */
  from?: Date | undefined;
  to?: Date | undefined;
}

/** A resolved period: the rollup table to read, the chart bucket, and the previous period of equal length. */
export interface ResolvedPeriod {
  from: Date;
  to: Date;
  previousFrom: Date;
  granularity: Granularity;
  bucketMs: number;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const PRESET_SPAN: Record<Exclude<PeriodPreset, 'custom'>, number> = {
  last_1h: HOUR,
  last_24h: DAY,
  last_7d: 7 * DAY,
  last_30d: 30 * DAY,
};
/**
 * Chart buckets to choose from: the smallest giving at most MAX_POINTS points wins. 60 keeps bars wide enough
 * to see on a phone: an hour in minutes, a day in hours, a week in 3 hours, a month in 12 hours.
 */
const BUCKETS = [MINUTE, 5 * MINUTE, 15 * MINUTE, HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, DAY, 7 * DAY];
const MAX_POINTS = 60;
export const MAX_SPAN_MS = 400 * DAY;

/**
 * Fits a period to the rollups so that a query reads few rows: up to 2 days from minute rollups (exact to
 * the minute, while they are retained), up to 8 days from hourly rollups (start aligned down to the hour),
 * longer from daily rollups (start aligned down to the UTC day). The chart bucket is the smallest giving
 * at most MAX_POINTS points, never finer than the rollups read.
 */
export function resolvePeriod(input: PeriodInput, now: number, minuteRetentionDays: number): ResolvedPeriod {
  let from: number;
  let to: number;
  if (input.preset === 'custom') {
    if (!input.from || !input.to) {
      throw new ServiceError('invalid_request', 'A custom period needs both `from` and `to`.', {
        param: 'from',
      });
    }
    from = input.from.getTime();
    to = input.to.getTime();
    if (!(from < to)) {
      throw new ServiceError('invalid_request', '`from` must be earlier than `to`.', { param: 'from' });
    }
    if (to - from > MAX_SPAN_MS) {
      throw new ServiceError('invalid_request', 'A period may span at most 400 days.', { param: 'to' });
    }
  } else {
    if (input.from || input.to) {
      throw new ServiceError('invalid_request', '`from` and `to` apply only to a custom period.', {
        param: 'from',
      });
    }
    to = now;
    from = now - PRESET_SPAN[input.preset];
  }
  const minuteKeptFrom = now - minuteRetentionDays * DAY;
  const granularity: Granularity =
    to - from <= 2 * DAY && from - (to - from) >= minuteKeptFrom
      ? 'minute'
      : to - from <= 8 * DAY
        ? 'hour'
        : 'day';
  const width = GRANULARITY_MS[granularity];
  from = Math.floor(from / width) * width;
  const span = to - from;
  // The bucket under way is not counted: an hour and 12 seconds is still 60 one-minute points.
  const fits = (b: number) => Math.floor(span / b) <= MAX_POINTS;
  const bucketMs = Math.max(width, BUCKETS.find(fits) ?? (BUCKETS.at(-1) as number));
  return {
    from: new Date(from),
    to: new Date(to),
    previousFrom: new Date(from - (to - from)),
    granularity,
    bucketMs,
  };
}
