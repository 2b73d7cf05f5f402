export { PgAttemptStore } from './pg-store';
export { RedisAttemptStore } from './redis-store';
export type { AttemptDecision, AttemptRule, AttemptState } from './rules';
export { attemptStep, backoffDelayMs } from './rules';
export type { AttemptStore } from './store';
export { AuthThrottle, type AuthThrottleConfig, DEFAULT_AUTH_THROTTLE } from './throttle';
