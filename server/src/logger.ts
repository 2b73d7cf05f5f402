import type { DestinationStream, Logger } from 'pino';
import { pino } from 'pino';

export type { Logger };

const CENSOR = '[redacted]';

/** Paths that may hold a secret; pino replaces them before a line is written (only when the line has the key). */
const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'headers.cookie',
  'password',
  'key',
  'token',
  'apiKey',
];

/** Fields that may hold a secret one level down, in any object a line carries (`err.key`, `input.password`…). */
const NESTED_SECRETS = ['password', 'key', 'token', 'apiKey'];

/**
 * Replaces `*.password`, `*.key`, `*.token` and `*.apiKey` in a line's object without touching the caller's
 * objects (a replaced object is copied, an Error with its own properties and prototype). pino's own `*.x` paths
 * would do it too, but they make it run its redaction over every value of every line: a clone and a parse of
 * each path each time, a tenth of all the memory a proxied chat call allocated.
 */
export function redactNested(obj: Record<string, unknown>): Record<string, unknown> {
  let out = obj;
  for (const name in obj) {
    const value = obj[name];
    if (value === null || typeof value !== 'object' || Array.isArray(value)) continue;
    let copy: Record<string, unknown> | undefined;
    for (const secret of NESTED_SECRETS) {
      if (!Object.hasOwn(value, secret)) continue;
      copy ??= Object.create(Object.getPrototypeOf(value), Object.getOwnPropertyDescriptors(value)) as Record<
        string,
        unknown
      >;
      Object.defineProperty(copy, secret, {
        value: CENSOR,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    if (!copy) continue;
    if (out === obj) out = { ...obj };
    out[name] = copy;
  }
  return out;
}

/** Stdout's lines leave in writes of at least this many bytes… */
const BATCH_BYTES = 4096;
/** …or after at most this long. */
const FLUSH_MS = 100;

/**
 * JSON lines on stdout, or on `destination` (tests read the lines a server writes). With the default level
 * every request logs a line. Stdout is written asynchronously, in writes of at least 4 KB or every 100 ms: a
 * write a line (even asynchronous, through libuv's thread pool) cost the request's thread ~35 µs, a
 * fifteenth of a proxied call's CPU. pino writes what is left when the process exits.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const stdout = destination ? undefined : pino.destination({ dest: 1, sync: false, minLength: BATCH_BYTES });
  // Flushed for a few ticks after the last line (a flush that finds a write under way does nothing), and not
  // at all while nothing is logged: an idle process makes no writes.
  let ticks = 0;
  if (stdout) {
    const timer = setInterval(() => {
      if (ticks === 0) return;
      ticks -= 1;
      stdout.flush();
    }, FLUSH_MS);
    timer.unref();
    stdout.on('close', () => clearInterval(timer));
  }
  const options = {
    level,
    redact: { paths: REDACT, censor: CENSOR },
    // The nested rule sees each line's object; pino gives child loggers' bindings no formatter (none are made).
    formatters: { log: redactNested },
    base: { service: 'tessera' },
    hooks: {
      streamWrite: (line: string) => {
        ticks = 3;
        return line;
      },
    },
  };
  return pino(options, destination ?? stdout);
}
