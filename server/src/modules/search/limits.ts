/** Per-request indexing limits, from the environment (SEARCH_MAX_*). */
export interface SearchLimits {
  /** Searches and indexing batches at once, per instance and per account, and how many of one account wait. */
  concurrency?: { total: number; perAccount: number; queuePerAccount: number };
  maxBatchDocuments: number;
  /** UTF-8 bytes of title + text + metadata JSON of one document. */
  maxDocumentBytes: number;
  /** Estimated matches from which search tries top-k first (strategy.ts TOPK_MIN_MATCHES when unset). */
  topKMinMatches?: number;
  /** Estimated matches past which a bounded candidate set answers, `approximate: true` (budget.ts EXACT_MAX_MATCHES when unset). */
  exactMaxMatches?: number;
  /** Time limit of each search statement on Postgres (SET LOCAL statement_timeout); 503 `search_timeout` past it. */
  statementTimeoutMs?: number;
  /** Small collections searched from memory (memory.ts): at most this many documents each (0: never), within maxBytes. */
  memory?: { maxDocuments: number; maxBytes: number };
}
