import type { KeyKind } from '@tessera/shared';

/** One metered request as it waits in memory before being written. */
export interface UsageEvent {
  /** When the request started (ms since the epoch). */
  occurredAt: number;
  requestId: string;
  accountId: string;
  keyId: string;
  mode: KeyKind;
  method: string;
  route: string;
  /** HTTP status, or ABORTED_STATUS when the client went away first. */
  status: number;
  latencyMs: number;
  model: string | null;
  /** Who answered the model call (`x-tessera-provider`): a routed model's deployment, else its provider. */
  deployment: string | null;
  promptTokens: number | null;
  completionTokens: number | null;
  /** What the tokens cost at the model's price that day, in micro-units of the catalogue's currency; null unpriced. */
  costMicros: number | null;
  /**
   * The response cache's part (modules/cache): `hit` (answered from the cache: 0 tokens, cost 0), `miss` (the
   * model answered), absent or null when the cache was off for the request.
   */
  cache?: 'hit' | 'miss' | null;
  /** A hit's saving: what its answer cost when the model made it, in micro-units. */
  savedMicros?: number | null;
  errorType: string | null;
  errorCode: string | null;
  errorMessage: string | null;
}

/** A request whose key was well formed but not verified (unknown or revoked): attributed if the key exists. */
export type UnresolvedUsageEvent = Omit<UsageEvent, 'accountId' | 'keyId' | 'mode'> & { keyHash: string };

/** nginx's convention for "client closed the request": never sent, only recorded. */
export const ABORTED_STATUS = 499;

export interface KeyOwner {
  keyId: string;
  accountId: string;
  mode: KeyKind;
}

/** Where events go; the Postgres one in production, a failing wrapper in outage tests. */
export interface UsageStore {
  /**
   * Writes the events and their rollups in one transaction: all or nothing. Events for which `maybeWritten`
   * is true were in a write that failed, possibly after its commit (the connection died before the answer):
   * those already stored are skipped, so that a retry never counts a request twice.
   */
  write(events: readonly UsageEvent[], maybeWritten?: (event: UsageEvent) => boolean): Promise<void>;
  /** Owners of stored keys by the SHA-256 of their text (revoked keys included). */
  resolveKeys(keyHashes: readonly string[]): Promise<Map<string, KeyOwner>>;
  /** Deletes raw events and minute rollups older than their retention; returns the events deleted. */
  prune(before: { events: Date; minuteRollups: Date }): Promise<number>;
}

/** What the recorder reports to /metrics. */
export interface UsageMetricsSink {
  written(n: number): void;
  dropped(n: number, reason: 'buffer_full' | 'shutdown' | 'unresolved_overflow'): void;
  unattributed(n: number): void;
}
