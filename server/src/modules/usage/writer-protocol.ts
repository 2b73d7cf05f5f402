import type { UsageEvent } from './types';

/** What the usage writer thread is started with. */
export interface WriterOptions {
  /** The Postgres database the thread writes to, over its own connections. */
  url: string;
  maxConnections: number;
}

/** A request to the usage writer thread (lib/thread-rpc.ts); each is answered once. */
export type WriterRequest =
  | { op: 'write'; events: UsageEvent[]; suspects: number[] }
  | { op: 'resolveKeys'; keyHashes: string[] }
  | { op: 'prune'; events: number; minuteRollups: number }
  | { op: 'close' };
