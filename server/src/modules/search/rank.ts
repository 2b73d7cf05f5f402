import { type SQL, sql } from 'drizzle-orm';
import type { QueryPlan } from './plan';
import { textArrayLiteral } from './sql';

/**
 * BM25F-style scoring, described in docs/search.md. For each query term t in document d:
 *   tf~ = W_TITLE·tf_title/(1−B+B·len_title/avg_title) + W_BODY·tf_body/(1−B+B·len_body/avg_body)
 *   score += w_t · ln(1 + (N − df + 0.5)/(df + 0.5)) · tf~·(K1+1)/(K1+tf~)
 * w_t is 1 in keyword mode and the trigram similarity in fuzzy mode.
 */
export const K1 = 1.2;
export const B = 0.75;
export const W_TITLE = 3;
export const W_BODY = 1;
/** Scores are rounded so that summation order cannot change the last bit between two pages. */
export const SCORE_DIGITS = 8;

const num = (value: number) => sql.raw(Number.isFinite(value) ? String(value) : '0');

export function idf(n: number, df: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/**
 * The documents matching `where` (on `search_documents d`) with what the score reads: `tf`, the tf
 * map decompressed once (concatenation with an empty object returns the other operand detoasted,
 * whereas each `->` on the stored map would decompress it again), and the field norms `tn`, `bn`.
 * OFFSET 0 keeps the subquery whole, so those are computed once per document.
 */
export function scoringSource(plan: QueryPlan, where: SQL): SQL {
  return sql`(select d.id, d.tf || '{}'::jsonb as tf,
      ${num(1 - B)} + ${num(B)} * d.title_len / ${num(plan.avgTitle)} as tn,
      ${num(1 - B)} + ${num(B)} * d.body_len / ${num(plan.avgBody)} as bn
    from search_documents d where ${where} offset 0) d`;
}

/**
 * The score of a row `m` from `scoringSource`. The terms and their weights (w·idf) are two bound
 * arrays read by one subquery, so the statement's size, and the planner's time (~20 ms for a
 * paragraph's 32 terms written out as expressions), do not grow with the number of terms.
 */
export function scoreExpression(plan: QueryPlan): SQL {
  if (plan.terms.length === 0) return sql`0::float8`;
  const terms = textArrayLiteral(plan.terms.map((t) => t.term));
  const weights = `{${plan.terms.map((t) => String(t.weight * idf(plan.n, t.df))).join(',')}}`;
  return sql`coalesce((select sum(u.w * z.tfn * ${num(K1 + 1)} / (${num(K1)} + z.tfn))
    from unnest(${terms}::text[], ${weights}::float8[]) u(t, w)
    cross join lateral (select m.tf -> u.t as f) e
    cross join lateral (
      select ${num(W_TITLE)} * (e.f ->> 0)::float8 / m.tn + ${num(W_BODY)} * (e.f ->> 1)::float8 / m.bn as tfn
    ) z
    where e.f is not null), 0::float8)`;
}
