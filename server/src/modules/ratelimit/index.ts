export { formatDuration } from './duration';
export type { Bucket, RateLimitDecision } from './gcra';
export { type LimitDecision, RateLimiter, type RateLimitMetrics } from './limiter';
export { MemoryRateLimitStore, type RateLimitStore } from './memory-store';
export { RedisRateLimitStore } from './redis-store';
