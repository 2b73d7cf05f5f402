import type { SearchDatabase } from './budget';
import type { FeedbackOptions } from './feedback';
import type { MemoryIndexes } from './memory';
import type { TopKStart } from './topk';

/** How a search may run: the server's limits, and the knobs tests and benchmarks turn (search.ts). */
export interface SearchOptions {
  /** Overrides TOPK_MIN_MATCHES (0: always try top-k; Infinity: never). */
  topKMinMatches?: number | undefined;
  /** Time limit of each statement on Postgres (STATEMENT_TIMEOUT_MS when unset). */
  statementTimeoutMs?: number | undefined;
  /**
   * Pseudo-relevance feedback for queries of plain words: off unless given. In the relevance benchmark it
   * lowered nDCG@10 (BENCHMARKS.md), so the API does not use it; the benchmark compares it.
   */
  feedback?: FeedbackOptions | false;
  /** Terms scored at most (MAX_SCORED_TERMS when unset; the benchmark compares others). */
  maxScoredTerms?: number;
  /**
   * Estimated matches past which every match is not scored and a bounded candidate set answers
   * (EXACT_MAX_MATCHES when unset; tests lower it to reach that path on a small collection).
   */
  exactMaxMatches?: number | undefined;
  /** Initial top-k list depth and verification budget (tests start small to exercise the rounds). */
  topKStart?: TopKStart;
  /** Phrases answered from positions when they can be (phrase.ts); false: always by the document check. */
  phrasePositions?: boolean;
  /** Overrides MAX_EXPECTED (phrase.ts; tests use positions for every phrase with Infinity). */
  phraseMaxExpected?: number;
  /** Small collections' indexes in memory (memory.ts): the page from there when it can answer exactly. */
  memory?: MemoryIndexes | undefined;
  /**
   * The database the statements go to (budget.ts SearchDatabase): on PostgreSQL a search's settings
   * are batched into fewer round trips, on PGlite the time limits it cannot enforce are not set.
   */
  database?: SearchDatabase;
  /** Told which path produced the page: full scoring, or top-k after how many rounds. */
  onStrategy?: (
    strategy:
      | { kind: 'full' }
      | { kind: 'memory'; direct: boolean }
      | { kind: 'phrase'; candidates: number }
      | { kind: 'topk'; rounds: number; wholeLists: number; estimated: boolean }
      | { kind: 'fallback'; rounds: number }
      | { kind: 'maxscore' }
      | { kind: 'unscored'; complete: boolean }
      | { kind: 'approximate' },
  ) => void;
}
