import type { DestinationStream, Logger } from 'pino';
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

/** JSON lines on stdout, or on `destination` (tests read the lines a server writes). */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = { level, redact: { paths: REDACT, censor: '[redacted]' }, base: { service: 'tessera' } };
  return destination ? pino(options, destination) : pino(options);
}
