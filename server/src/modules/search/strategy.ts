import type { SearchRequest } from '@tessera/shared';
import type { Db } from '../../db/client';
import { rankApproximately } from './approximate';
import { idf, K1 } from './bm25';
import { EXACT_MAX_MATCHES, EXACT_SHARE, MIN_EXACT_MS, STATEMENT_TIMEOUT_MS, withinBudget } from './budget';
import type { CursorPosition } from './cursor';
import { estimateMatches } from './estimate';
import type { ListsOutcome } from './lists';
import type { SearchOptions } from './options';
import {
  expectedPhraseMatches,
  MAX_EXPECTED,
  MAX_PHRASE_CANDIDATES,
  type PhraseCandidates,
  type PhraseChain,
  parsePhrase,
  phraseCandidates,
} from './phrase';
import { rankPhraseCandidates } from './phrase-rank';
import type { QueryPlan } from './plan';
import { type RankedRow, type RankQuery, rankDocuments } from './query';
import type { Scope } from './sql';
import { rankTopK } from './topk';
import { rankUnscored } from './unscored';

/**
 * Which path ranks a planned query on the SQL side (docs/search.md, 2-2e): the matches in id order
 * when nothing is scored, a phrase's candidates from positions, top-k over the impact-ordered
 * postings, every match scored, or, past the budget (budget.ts), a bounded candidate set.
 */

/**
 * Below this many (estimated) matches every match is scored; above it, top-k over the impact-ordered
 * postings is tried first (topk.ts).
 */
export const TOPK_MIN_MATCHES = 1_000;

/**
 * MaxScore (Turtle and Flood): a term adds at most w·idf·(k1+1) to a score (saturation never
 * reaches k1+1). Taking the terms with the smallest such bounds while their sum stays under theta,
 * a lower bound on the page's last score, a document holding none of the other ("essential") terms
 * scores under theta and cannot be on the page; so when any term matches, only documents holding
 * an essential term need scoring. Common words of a question thus stop costing a scan of most of
 * the collection. Returns the narrower tsquery, or undefined when nothing can be left out.
 */
export function maxScorePrune(plan: QueryPlan, theta: number): string | undefined {
  if (!plan.matchAnyOf || !Number.isFinite(theta) || theta <= 0) return undefined;
  const bounds = plan.terms
    .map((t) => ({ term: t.term, max: t.weight * idf(plan.n, t.df) * (K1 + 1) }))
    .sort((x, y) => x.max - y.max);
  const limit = theta - 1e-6 * Math.max(1, Math.abs(theta));
  let sum = 0;
  let skipped = 0;
  for (const b of bounds) {
    if (sum + b.max >= limit) break;
    sum += b.max;
    skipped++;
  }
  if (skipped === 0 || skipped === bounds.length) return undefined;
  return plan.matchAnyOf(bounds.slice(skipped).map((b) => b.term)) ?? undefined;
}

/**
 * Below this many (estimated) matches a phrase is checked on the documents the GIN index gives;
 * above it, from positions. Low: reading two lists of a few hundred postings costs less than
 * rechecking as many documents.
 */
export const PHRASE_MIN_MATCHES = 200;

/** Candidates of the plan's most selective phrase (fewest expected matches), when positions are worth reading. */
async function bestPhraseCandidates(
  db: Db,
  scope: Scope,
  plan: QueryPlan,
  maxExpected: number,
): Promise<PhraseCandidates | undefined> {
  const dfs = new Map(plan.terms.map((t) => [t.term, t.df]));
  let best: { chain: PhraseChain; expected: number } | undefined;
  for (const text of plan.phrases ?? []) {
    const chain = parsePhrase(text);
    if (!chain) continue;
    const expected = expectedPhraseMatches(
      chain.lexemes.map((l) => dfs.get(l) ?? 0),
      plan.n,
      plan.avgTitle + plan.avgBody,
    );
    if (!best || expected < best.expected) best = { chain, expected };
  }
  // A phrase most documents with its words hold: top-k finds its page among the first candidates.
  if (!best || best.expected > maxExpected) return undefined;
  return phraseCandidates(db, scope, best.chain, plan);
}

/** A page, and whether a budget made it approximate (approximate.ts, unscored.ts). */
export interface Ranked {
  rows: RankedRow[];
  approximate: boolean;
}

/** The page of ranked rows: top-k over the postings when many documents may match, else every match scored. */
export async function rank(
  db: Db,
  plan: QueryPlan & { tsquery: string },
  {
    scope,
    input,
    after,
    options,
  }: { scope: Scope; input: SearchRequest; after: CursorPosition | undefined; options: SearchOptions },
): Promise<Ranked> {
  const query: RankQuery = {
    scope,
    plan,
    filter: input.filter,
    after,
    offset: input.offset ?? 0,
    limit: input.limit,
  };
  const dfs = new Map(plan.terms.map((t) => [t.term, t.df]));
  const estimate = estimateMatches(plan.tsquery, dfs, plan.n);
  const exact = (rows: RankedRow[]): Ranked => ({ rows, approximate: false });
  // Nothing to score (an exclusion alone): the matches in id order, walking the primary key.
  if (plan.terms.length === 0 && estimate >= TOPK_MIN_MATCHES) {
    const { rows, complete } = await rankUnscored(db, query);
    options.onStrategy?.({ kind: 'unscored', complete });
    return { rows, approximate: !complete };
  }
  // A phrase every match holds: its candidates from positions, when few documents may match the
  // usual way is as cheap (one GIN lookup, few rechecks) and positions are not read.
  if (plan.phrases && plan.refs && options.phrasePositions !== false && estimate >= PHRASE_MIN_MATCHES) {
    const candidates = await bestPhraseCandidates(db, scope, plan, options.phraseMaxExpected ?? MAX_EXPECTED);
    const rows = candidates && (await rankPhraseCandidates(db, query, candidates, MAX_PHRASE_CANDIDATES));
    if (candidates && rows) {
      options.onStrategy?.({ kind: 'phrase', candidates: candidates.ords.length });
      return exact(rows);
    }
  }
  let lists: ListsOutcome | undefined;
  let full = query;
  // The exact paths (top-k's rounds, then scoring every match) share EXACT_SHARE of the time limit;
  // past it, or when a statement of theirs runs out of it, the bounded candidate set answers.
  const timeoutMs = options.statementTimeoutMs ?? STATEMENT_TIMEOUT_MS;
  const deadline = performance.now() + timeoutMs * EXACT_SHARE;
  const left = () => deadline - performance.now();
  const canApproximate = plan.refs !== undefined && plan.terms.length > 0;
  const approximately = async (): Promise<Ranked> => {
    options.onStrategy?.({ kind: 'approximate' });
    return { rows: await rankApproximately(db, query, lists), approximate: true };
  };
  if (
    plan.refs &&
    !plan.truncated &&
    plan.terms.length > 0 &&
    estimate >= (options.topKMinMatches ?? TOPK_MIN_MATCHES)
  ) {
    const outcome = await withinBudget(
      db,
      left(),
      timeoutMs,
      (sp) => rankTopK(sp, query, { ...options.topKStart, deadline }),
      options.database,
      (out) => out.rows !== undefined,
    );
    if (!outcome) {
      options.onStrategy?.({ kind: 'fallback', rounds: 0 });
      return approximately();
    }
    if (outcome.rows) {
      const { rounds, wholeLists, estimated } = outcome;
      options.onStrategy?.({ kind: 'topk', rounds, wholeLists, estimated });
      return exact(outcome.rows);
    }
    options.onStrategy?.({ kind: 'fallback', rounds: outcome.rounds });
    lists = outcome.lists;
    const pruned = maxScorePrune(plan, outcome.theta);
    if (pruned) {
      options.onStrategy?.({ kind: 'maxscore' });
      full = { ...query, plan: { ...plan, tsquery: pruned } };
    }
  } else {
    options.onStrategy?.({ kind: 'full' });
  }
  // Scoring every match, when it fits the budget; else (or when it ran out) a bounded candidate set.
  // Without postings (a collection not yet converted) there is no candidate set: exact only.
  if (!canApproximate) return exact(await rankDocuments(db, full));
  const cost = estimateMatches(full.plan.tsquery, dfs, plan.n);
  if (cost > (options.exactMaxMatches ?? EXACT_MAX_MATCHES) || left() < MIN_EXACT_MS) return approximately();
  const rows = await withinBudget(
    db,
    left(),
    timeoutMs,
    (sp) => rankDocuments(sp, full),
    options.database,
    () => true,
  );
  return rows ? exact(rows) : approximately();
}
