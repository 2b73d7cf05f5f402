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

/**
 * JSON lines on stdout, or on `destination` (tests read the lines a server writes). Stdout is written
 * asynchronously: with the default level every request logs a line, and a synchronous write was a system call
 * on the request's path; lines written while one write is under way leave together in the next. Nothing is
 * held back (no minimum length), and pino flushes what is left when the process exits.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = { level, redact: { paths: REDACT, censor: '[redacted]' }, base: { service: 'tessera' } };
  return pino(options, destination ?? pino.destination({ dest: 1, sync: false }));
}
