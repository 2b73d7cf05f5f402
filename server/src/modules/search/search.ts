import type { SearchRequest, SearchResponse } from '@tessera/shared';
import type { Ctx } from '../../context';
import { ServiceError } from '../../errors';
import { type CursorPosition, decodeCursor, encodeCursor } from './cursor';
import { planFuzzy, planKeyword } from './plan';
import { type RankedRow, type RankQuery, rankDocuments } from './query';
import { markSnippet } from './snippet';
import type { Scope } from './sql';
import { estimateMatches, rankTopK, type TopKStart } from './topk';

/**
 * Below this many (estimated) matches every match is scored; above it, top-k over the impact-ordered
 * postings is tried first (topk.ts).
 */
export const TOPK_MIN_MATCHES = 1_000;

export interface SearchOptions {
  /** Overrides TOPK_MIN_MATCHES (0: always try top-k; Infinity: never). */
  topKMinMatches?: number | undefined;
  /** Initial top-k list depth and verification budget (tests start small to exercise the rounds). */
  topKStart?: TopKStart;
  /** Told which path produced the page: full scoring, or top-k after how many rounds. */
  onStrategy?: (
    strategy: { kind: 'full' } | { kind: 'topk'; rounds: number } | { kind: 'fallback'; rounds: number },
  ) => void;
}

const empty: SearchResponse = { object: 'list', data: [], has_more: false, next_cursor: null };

/** What a cursor is bound to: the same query, mode, collection and filter. */
function cursorContext(input: SearchRequest): string {
  return JSON.stringify(['search', input.collection, input.mode, input.query, input.filter ?? null]);
}

/**
 * `POST /api/search`: ranked hits of one collection of the caller's account. Keyword mode reads the
 * query as people type it (websearch syntax: "phrases", -exclusion, OR); fuzzy mode expands each
 * word to similar indexed terms first.
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
  const plan =
    input.mode === 'fuzzy'
      ? await planFuzzy(ctx.db, scope, input.query)
      : await planKeyword(ctx.db, scope, input.query);
  if (!plan || plan.tsquery === null) return empty;
  const query: RankQuery = {
    scope,
    plan: { ...plan, tsquery: plan.tsquery },
    filter: input.filter,
    after,
    offset: input.offset ?? 0,
    limit: input.limit,
  };

  const estimate = estimateMatches(
    query.plan.tsquery,
    new Map(plan.terms.map((t) => [t.term, t.df])),
    plan.n,
  );
  let rows: RankedRow[] | undefined;
  if (
    plan.refs &&
    !plan.truncated &&
    plan.terms.length > 0 &&
    estimate >= (options.topKMinMatches ?? TOPK_MIN_MATCHES)
  ) {
    const outcome = await rankTopK(ctx.db, query, options.topKStart);
    rows = outcome.rows;
    options.onStrategy?.({ kind: rows ? 'topk' : 'fallback', rounds: outcome.rounds });
  } else {
    options.onStrategy?.({ kind: 'full' });
  }
  rows ??= await rankDocuments(ctx.db, query);
  const page = rows.slice(0, input.limit);
  const last = page.at(-1);
  const hasMore = rows.length > input.limit;
  return {
    object: 'list',
    data: page.map((r) => ({
      id: r.id,
      collection: input.collection,
      title: r.title,
      snippet: markSnippet(r.headline),
      score: r.score,
      metadata: r.metadata,
    })),
    has_more: hasMore,
    next_cursor:
      hasMore && last ? encodeCursor({ id: last.id, score: last.score }, cursorContext(input)) : null,
  };
}
