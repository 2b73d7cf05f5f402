import type { SearchRequest, SearchResponse } from '@tessera/shared';
import { sql } from 'drizzle-orm';
import type { Ctx } from '../../context';
import type { Db } from '../../db/client';
import { ServiceError } from '../../errors';
import { rankApproximately } from './approximate';
import { idf, K1 } from './bm25';
import { type CursorPosition, decodeCursor, encodeCursor } from './cursor';
import { estimateMatches } from './estimate';
import { expandWithFeedback, type FeedbackOptions } from './feedback';
import { planFuzzy } from './fuzzy';
import type { ListsOutcome } from './lists';
import type { MemoryIndexes } from './memory';
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
import { MAX_QUERY_CLAUSES, MAX_SCORED_TERMS, planKeyword, type QueryPlan } from './plan';
import { type RankedRow, type RankQuery, rankDocuments } from './query';
import { makeSnippets } from './snippet';
import type { Scope } from './sql';
import { type ParsedQuery, parseQuery } from './syntax';
import { rankTopK, type TopKStart } from './topk';
import { rankUnscored } from './unscored';

/**
 * Below this many (estimated) matches every match is scored; above it, top-k over the impact-ordered
 * postings is tried first (topk.ts).
 */
export const TOPK_MIN_MATCHES = 1_000;
/** Each search statement's time limit on Postgres when the configuration names none. */
export const STATEMENT_TIMEOUT_MS = 5_000;

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

/** What a cursor is bound to: the same query, mode, collection and filter. */
function cursorContext(input: SearchRequest): string {
  return JSON.stringify([
    'search',
    input.collection,
    input.mode,
    input.operator,
    input.query,
    input.filter ?? null,
  ]);
}

/** The query's explicit parts are bounded before any work starts: a 400 naming the limit. */
function parseBounded(query: string): ParsedQuery {
  const parsed = parseQuery(query);
  const parts = parsed.clauses.reduce((sum, c) => sum + c.units.length, 0);
  if (parts > MAX_QUERY_CLAUSES) {
    throw new ServiceError(
      'invalid_request',
      `The query has ${parts} distinct quoted, required (+), excluded (-) or OR-ed parts; the limit is ${MAX_QUERY_CLAUSES}. Plain words have no such limit.`,
      { param: 'query', code: 'too_many_query_parts' },
    );
  }
  return parsed;
}

/** Postgres's query_canceled (statement_timeout), anywhere in the cause chain. */
function isStatementTimeout(err: unknown): boolean {
  let current: unknown = err;
  for (let depth = 0; current !== null && typeof current === 'object' && depth < 6; depth++) {
    if ((current as { code?: unknown }).code === '57014') return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * Runs the search's statements in one repeatable-read transaction whose statements each have a time limit
 * (SET LOCAL: it ends with the transaction, the pooled connection keeps its default). PGlite runs
 * one statement at a time in process and has no timer to cancel one; there the bounded plan is
 * what bounds the work (at most MAX_SCORED_TERMS scored terms, MAX_QUERY_CLAUSES parts).
 */
async function withTimeLimit<T>(db: Db, timeoutMs: number, run: (tx: Db) => Promise<T>): Promise<T> {
  try {
    return await db.transaction(async (tx) => {
      // One snapshot for every statement: top-k reads the postings and verifies candidates in
      // separate statements, and its bounds hold only for the documents those postings describe.
      await tx.execute(sql`set transaction isolation level repeatable read`);
      await tx.execute(sql`select set_config('statement_timeout', ${String(timeoutMs)}, true)`);
      return run(tx as unknown as Db);
    });
  } catch (err) {
    if (!isStatementTimeout(err)) throw err;
    throw new ServiceError(
      'unavailable',
      `The search took longer than its limit of ${timeoutMs} ms and was stopped. Narrow the query (fewer or rarer words, a filter) and try again.`,
      { code: 'search_timeout', param: 'query', retryable: false, cause: err },
    );
  }
}

/**
 * `POST /api/search`: ranked hits of one collection of the caller's account. Keyword mode reads the
 * query as people type it (syntax.ts: words, "phrases", +required, -excluded, OR); with operator
 * "or" any word matches and BM25F ranks, with "and" every word is required. Fuzzy mode expands
 * each word to similar indexed terms first.
 */
export async function searchDocuments({
  ctx,
  accountId,
  input,
  options = {},
}: {
  ctx: Pick<Ctx, 'db'>;
  accountId: string;
  input: SearchRequest;
  options?: SearchOptions;
}): Promise<SearchResponse> {
  if (input.cursor !== undefined && input.offset !== undefined) {
    throw new ServiceError('invalid_request', 'Pass either `cursor` or `offset`, not both.', {
      param: 'cursor',
      code: 'invalid_value',
    });
  }
  const after: CursorPosition | undefined =
    input.cursor === undefined ? undefined : decodeCursor(input.cursor, cursorContext(input));
  const scope: Scope = { accountId, collection: input.collection };
  const parsed = input.mode === 'fuzzy' ? undefined : parseBounded(input.query);
  const timeoutMs = options.statementTimeoutMs ?? STATEMENT_TIMEOUT_MS;
  const maxTerms = options.maxScoredTerms ?? MAX_SCORED_TERMS;
  const feedback = options.feedback ?? false;
  let leftOut = false;
  let marks = { language: 'simple', lexemes: [] as string[] };
  // A small collection whose index is loaded: one statement, no transaction (memory.ts rankDirect).
  const direct =
    options.memory && parsed && !feedback
      ? await options.memory.rankDirect(ctx.db, {
          scope,
          parsed,
          operator: input.operator,
          maxTerms,
          filter: input.filter,
          after,
          offset: input.offset ?? 0,
          limit: input.limit,
        })
      : undefined;
  if (direct) options.onStrategy?.({ kind: 'memory', direct: true });
  const { rows, approximate } = direct
    ? { rows: direct.rows, approximate: false }
    : await withTimeLimit(ctx.db, timeoutMs, async (db): Promise<Ranked> => {
        const plan = parsed
          ? await planKeyword(db, scope, parsed, input.operator, maxTerms)
          : await planFuzzy(db, scope, input.query, input.operator, maxTerms);
        if (!plan || plan.tsquery === null) return { rows: [], approximate: false };
        leftOut = plan.leftOut === true;
        marks = { language: plan.language, lexemes: plan.highlight };
        const planned = { ...plan, tsquery: plan.tsquery };
        // Feedback widens a query of plain words only: required, excluded and quoted parts say exactly
        // what the caller wants, and operator "and" asks for every word.
        if (feedback && parsed && parsed.clauses.length === 0 && input.operator === 'or') {
          const firstPass = await rank(db, planned, {
            scope,
            input: { ...input, limit: feedback.docs, offset: undefined, cursor: undefined },
            after: undefined,
            options: { ...options, onStrategy: undefined },
          });
          const expanded = await expandWithFeedback(db, scope, planned, firstPass.rows, feedback);
          return rank(db, expanded, { scope, input, after, options });
        }
        if (options.memory) {
          const rows = await options.memory.rank(db, {
            scope,
            plan: planned,
            filter: input.filter,
            after,
            offset: input.offset ?? 0,
            limit: input.limit,
          });
          if (rows) {
            options.onStrategy?.({ kind: 'memory', direct: false });
            return { rows, approximate: false };
          }
        }
        return rank(db, planned, { scope, input, after, options });
      });
  if (direct && direct.plan.tsquery !== null) {
    leftOut = direct.plan.leftOut === true;
    marks = { language: direct.plan.language, lexemes: direct.plan.highlight };
  }
  const page = rows.slice(0, input.limit);
  const last = page.at(-1);
  const hasMore = rows.length > input.limit;
  const snippets = await makeSnippets(
    ctx.db,
    marks.language,
    marks.lexemes,
    page.map((r) => r.text),
    page.map((r) => r.words),
  );
  return {
    object: 'list',
    data: page.map((r, i) => ({
      id: r.id,
      collection: input.collection,
      title: r.title,
      snippet: snippets[i] ?? '',
      score: r.score,
      metadata: r.metadata,
    })),
    has_more: hasMore,
    next_cursor:
      hasMore && last ? encodeCursor({ id: last.id, score: last.score }, cursorContext(input)) : null,
    approximate: approximate || leftOut,
  };
}

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
interface Ranked {
  rows: RankedRow[];
  approximate: boolean;
}

/**
 * Scoring every match is tried only when at most this many documents may match (estimated) and,
 * on Postgres, only within EXACT_SHARE of the statement time limit; past either, the page comes
 * from a bounded candidate set (approximate.ts). 2a costs a document visit a match: ~20,000 take
 * 0.2-0.5 s on a 2-vCPU machine.
 */
export const EXACT_MAX_MATCHES = 20_000;
/** The share of the statement time limit that the exact paths (top-k, scoring every match) may take. */
export const EXACT_SHARE = 0.4;
/** Scoring every match is not started with less budget left than this. */
const MIN_EXACT_MS = 50;

/**
 * Runs `run` in a savepoint whose statements stop after `budgetMs`; undefined when one did (the
 * savepoint is rolled back and the transaction goes on, its time limit restored). PGlite cannot stop
 * a statement: there the estimate alone decides.
 */
async function withinBudget<T>(
  db: Db,
  budgetMs: number,
  restoreMs: number,
  run: (db: Db) => Promise<T>,
): Promise<T | undefined> {
  try {
    return await db.transaction(async (sp) => {
      await sp.execute(
        sql`select set_config('statement_timeout', ${String(Math.max(1, Math.round(budgetMs)))}, true)`,
      );
      const out = await run(sp as unknown as Db);
      await sp.execute(sql`select set_config('statement_timeout', ${String(restoreMs)}, true)`);
      return out;
    });
  } catch (err) {
    if (isStatementTimeout(err)) return undefined;
    throw err;
  }
}

/** The page of ranked rows: top-k over the postings when many documents may match, else every match scored. */
async function rank(
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
    const outcome = await withinBudget(db, left(), timeoutMs, (sp) =>
      rankTopK(sp, query, { ...options.topKStart, deadline }),
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
  const rows = await withinBudget(db, left(), timeoutMs, (sp) => rankDocuments(sp, full));
  return rows ? exact(rows) : approximately();
}
