import type { SearchRequest, SearchResponse } from '@tessera/shared';
import type { Ctx } from '../../context';
import { ServiceError } from '../../errors';
import { STATEMENT_TIMEOUT_MS, withTimeLimit } from './budget';
import { type CursorPosition, decodeCursor, encodeCursor } from './cursor';
import { expandWithFeedback } from './feedback';
import { planFuzzy } from './fuzzy';
import type { SearchOptions } from './options';
import { MAX_QUERY_CLAUSES, MAX_SCORED_TERMS, planKeyword } from './plan';
import { makeSnippets } from './snippet';
import type { Scope } from './sql';
import { type Ranked, rank } from './strategy';
import { type ParsedQuery, parseQuery } from './syntax';

export type { SearchOptions } from './options';

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
    : await withTimeLimit(
        ctx.db,
        timeoutMs,
        async (db): Promise<Ranked> => {
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
              // Statements follow this ranking: its budget is restored (final: never).
              options: {
                ...options,
                onStrategy: undefined,
                database: options.database === 'pglite' ? 'pglite' : undefined,
              },
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
        },
        options.database,
      );
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
