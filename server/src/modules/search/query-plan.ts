import type { References } from './codec';

// What a query is turned into before ranking (plan.ts makes it; rank, fuzzy, phrase, feedback and query read it):
// types only, so that they need not import the planner, which imports them.

export type Operator = 'or' | 'and';

export interface ScoredTerm {
  term: string;
  /** From the query's own frequency of the term; times the trigram similarity in fuzzy mode. */
  weight: number;
  df: number;
}

/** Everything the ranking statement needs, read in one round trip before it. */
export interface QueryPlan {
  language: string;
  n: number;
  avgTitle: number;
  avgBody: number;
  /**
   * The collection's version in the search's snapshot (the row's creation time, next ordinal, document
   * count and language): every write changes it (memory.ts answers only a plan of its own version).
   */
  version?: string;
  /** tsquery text that decides what matches; null when nothing can match. */
  tsquery: string | null;
  /** The lexemes snippets mark: the scored terms only, so highlighting work is bounded (none: nothing to mark). */
  highlight: string[];
  terms: ScoredTerm[];
  /** True when more terms must be scored than MAX_SCORED_TERMS (top-k then does not apply). */
  truncated: boolean;
  /** The collection's postings references (postings.ts); undefined while it has no postings. */
  refs: References | undefined;
  /**
   * Set when what matches is any of the scored terms (nothing required): the tsquery for the same
   * query matching only some of them, for MaxScore pruning (strategy.ts).
   */
  matchAnyOf?: (terms: string[]) => string | null;
  /** Words joined by OR left out of the match, past the scored terms (the page is then approximate). */
  leftOut?: boolean;
  /**
   * Phrases (phraseto_tsquery text) every match contains: the required quoted parts, or the
   * query's only part when it is quoted. phrase.ts answers from positions when it can.
   */
  phrases?: string[];
}
