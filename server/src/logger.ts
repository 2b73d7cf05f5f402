import type { Logger } from 'pino';
import { pino } from 'pino';

export type { Logger };

/** Paths that may hold a secret; pino replaces them before a line is written. */
const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'headers.cookie',
  'password',
  'key',
  'token',
  '*.password',
  '*.key',
  '*.token',
  '*.apiKey',
];

export function createLogger(level: string): Logger {
  return pino({ level, redact: { paths: REDACT, censor: '[redacted]' }, base: { service: 'tessera' } });
}
