import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import type { RankedRow } from './query';
import type { QueryPlan, ScoredTerm } from './query-plan';
import { queryRows, quoteLexeme, type Scope, textArrayLiteral } from './sql';

/**
 * Pseudo-relevance feedback (RM3, Lavrenko and Croft's relevance model mixed with the query, as
 * Anserini and Lucene-based systems run it): the first pass's best documents are taken as relevant,
 * the terms they share most become part of the query, and the second pass ranks with both.
 *   P(t|R) ∝ Σ_d P(t|d) · P(q|d),  P(t|d) = tf(t,d)/|d|,  P(q|d) ∝ the first-pass score of d
 *   weight(t) = λ · w_t/Σw  (query terms)  +  (1 − λ) · P(t|R)/Σ P(t'|R)  (the `terms` best others)
 * Not used by the API: in the relevance benchmark it lowered nDCG@10 at every setting tried (BENCHMARKS.md);
 * kept for the benchmark's comparison (SearchOptions.feedback).
 */
export interface FeedbackOptions {
  /** First-pass documents taken as relevant. */
  docs: number;
  /** Expansion terms added. */
  terms: number;
  /** λ: the original query's share of the weight. */
  originalWeight: number;
}

/** A term worth adding holds a letter (numbers and punctuation-only lexemes say little about a topic). */
const WORDLIKE = /\p{L}/u;

export async function expandWithFeedback(
  db: Db,
  scope: Scope,
  plan: QueryPlan & { tsquery: string },
  firstPass: RankedRow[],
  options: FeedbackOptions,
): Promise<QueryPlan & { tsquery: string }> {
  const top = firstPass.slice(0, options.docs).filter((r) => r.score > 0);
  if (top.length === 0 || plan.terms.length === 0) return plan;
  const docs = await queryRows<{ id: string; tf: Record<string, [number, number]>; len: number }>(
    db,
    sql`select d.id, d.tf, (d.title_len + d.body_len)::float8 as len from search_documents d
        where d.account_id = ${scope.accountId} and d.collection = ${scope.collection}
          and d.id = any(${textArrayLiteral(top.map((r) => r.id))}::text[])`,
  );
  const scoreOf = new Map(top.map((r) => [r.id, r.score]));
  const totalScore = top.reduce((sum, r) => sum + r.score, 0);
  const model = new Map<string, number>();
  for (const d of docs) {
    const pq = (scoreOf.get(d.id) ?? 0) / totalScore;
    const len = Math.max(d.len, 1);
    for (const [term, [title, body]] of Object.entries(d.tf)) {
      if (!WORDLIKE.test(term)) continue;
      model.set(term, (model.get(term) ?? 0) + (pq * (title + body)) / len);
    }
  }
  const original = new Set(plan.terms.map((t) => t.term));
  const candidates = [...model]
    .filter(([term]) => !original.has(term))
    .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1))
    .slice(0, options.terms);
  if (candidates.length === 0) return plan;
  const dfs = await queryRows<{ term: string; df: number }>(
    db,
    sql`select term, df from search_terms where account_id = ${scope.accountId} and collection = ${scope.collection}
        and term = any(${textArrayLiteral(candidates.map(([t]) => t))}::text[])`,
  );
  const dfOf = new Map(dfs.map((r) => [r.term, r.df]));
  const lambda = options.originalWeight;
  const originalSum = plan.terms.reduce((sum, t) => sum + t.weight, 0);
  const expansionSum = candidates.reduce((sum, [, p]) => sum + p, 0);
  const terms: ScoredTerm[] = [
    ...plan.terms.map((t) => ({ ...t, weight: (lambda * t.weight) / originalSum })),
    ...candidates
      .filter(([term]) => (dfOf.get(term) ?? 0) > 0)
      .map(([term, p]) => ({ term, df: dfOf.get(term) ?? 0, weight: ((1 - lambda) * p) / expansionSum })),
  ];
  const added = terms.slice(plan.terms.length).map((t) => quoteLexeme(t.term));
  return {
    ...plan,
    // The added terms widen what matches as alternatives of the query's own optional terms.
    tsquery: `( ${plan.tsquery} ) | ${added.join(' | ')}`,
    terms,
  };
}
