import type { UsageEvent } from './types';

/** What the usage writer thread is started with. */
export interface WriterOptions {
  /** The Postgres database the thread writes to, over its own connections. */
  url: string;
  maxConnections: number;
}

/** A request to the usage writer thread; each is answered once, with the same `id`. */
export type WriterRequest =
  | { id: number; op: 'write'; events: UsageEvent[]; suspects: number[] }
  | { id: number; op: 'resolveKeys'; keyHashes: string[] }
  | { id: number; op: 'prune'; events: number; minuteRollups: number }
  | { id: number; op: 'close' };

export type WriterReply =
  | { id: number; ok: true; result?: unknown }
  | { id: number; ok: false; message: string; code?: string };
