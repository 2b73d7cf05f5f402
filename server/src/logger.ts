import { writeSync } from 'node:fs';
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

type Sonic = ReturnType<typeof pino.destination>;
const STDOUT = 1;

/**
 * Lines gathered in an array and handed to sonic-boom (pino's asynchronous writer) joined, a batch at a time.
 * Handed one line at a time, sonic-boom measures the UTF-8 length of its whole pending string (built by `+=`)
 * on every write, which flattens it: each line copied the batch so far again, ~2.7 KB allocated a proxied chat
 * call (bench/gateway's allocation profile).
 */
class LineBatch {
  private lines: string[] = [];
  private length = 0;
  /** Whether sonic-boom has closed (ended or destroyed): nothing more can be written. */
  closed = false;

  constructor(readonly out: Sonic) {
    out.on('close', () => {
      this.closed = true;
    });
  }

  write(line: string): boolean {
    this.lines.push(line);
    this.length += line.length;
    if (this.length >= BATCH_BYTES) this.handOver();
    return true;
  }

  /** The lines not yet handed over, joined, and forgotten. */
  take(): string {
    const text = this.lines.length === 1 ? (this.lines[0] as string) : this.lines.join('');
    this.lines = [];
    this.length = 0;
    return text;
  }

  /** Hands what is gathered to sonic-boom, which writes it when it reaches a batch or is flushed. */
  handOver(): void {
    if (this.length > 0) this.out.write(this.take());
  }

  /** Hands what is gathered to sonic-boom and has it write, asynchronously (pino's `logger.flush`). */
  flush(cb?: (err?: Error) => void): void {
    this.handOver();
    this.out.flush(cb);
  }

  /**
   * At exit: sonic-boom's pending bytes, then the gathered lines, written synchronously in that order. The
   * lines do not go through sonic-boom, which could start an asynchronous write that the exit would cut. (Once
   * sonic-boom has ended, stdout itself is still open: it never closes descriptors 1 and 2.)
   */
  flushSync(): void {
    if (!this.closed) this.out.flushSync();
    const text = this.take();
    if (!text) return;
    try {
      writeAllSync(STDOUT, text);
    } catch {
      // Stdout is gone (EPIPE: the reader closed it); at exit there is nowhere else to say so.
    }
  }
}

/** Writes all of `text` to `fd` synchronously, waiting out a full pipe (EAGAIN) for up to ~10 s. */
function writeAllSync(fd: number, text: string): void {
  let rest = Buffer.from(text, 'utf8');
  let waits = 0;
  while (rest.length > 0) {
    try {
      rest = rest.subarray(writeSync(fd, rest));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN' || waits++ >= 10_000) throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
    }
  }
}

/**
 * Every stdout batch of the process, written out when it exits (one in a server; a test process may make tens,
 * each also held by its flush timer).
 */
const batches = new Set<LineBatch>();
let exitHooked = false;
function flushAtExit(batch: LineBatch): void {
  batches.add(batch);
  if (exitHooked) return;
  exitHooked = true;
  process.on('exit', () => {
    for (const b of batches) b.flushSync();
  });
  // With the event loop still there, what is gathered goes to sonic-boom, which pino's own hook then flushes
  // and ends. Only lines are handed over: a flush of nothing would keep the loop alive and come back here.
  process.on('beforeExit', () => {
    for (const b of batches) if (!b.closed) b.handOver();
  });
}

/**
 * JSON lines on stdout, or on `destination` (tests read the lines a server writes). With the default level
 * every request logs a line. Stdout is written asynchronously, in writes of at least 4 KB or every 100 ms: a
 * write a line (even asynchronous, through libuv's thread pool) cost the request's thread ~35 µs, a
 * fifteenth of a proxied call's CPU. What is left is written when the process exits.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const stdout = destination
    ? undefined
    : new LineBatch(pino.destination({ dest: STDOUT, sync: false, minLength: BATCH_BYTES }));
  // Flushed for a few ticks after the last line (a flush that finds a write under way does nothing), and not
  // at all while nothing is logged: an idle process makes no writes.
  let ticks = 0;
  if (stdout) {
    flushAtExit(stdout);
    const timer = setInterval(() => {
      if (ticks === 0) return;
      ticks -= 1;
      stdout.flush();
    }, FLUSH_MS);
    timer.unref();
    stdout.out.on('close', () => clearInterval(timer));
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
