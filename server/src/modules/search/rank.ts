import { type SQL, sql } from 'drizzle-orm';
import type { QueryPlan } from './plan';

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

/** Columns of a matched document `d`: field norms and, per scored term, its [title tf, body tf] pair. */
export function scoringColumns(plan: QueryPlan): SQL {
  const pairs = plan.terms.map((t, i) => sql`, d.tf -> ${t.term} as ${sql.raw(`p${i}`)}`);
  return sql`(${num(1 - B)} + ${num(B)} * d.title_len / ${num(plan.avgTitle)}) as title_norm,
    (${num(1 - B)} + ${num(B)} * d.body_len / ${num(plan.avgBody)}) as body_norm ${sql.join(pairs, sql``)}`;
}

/** The score of a row `m` carrying `scoringColumns`, the terms' idf and weights folded in as constants. */
export function scoreExpression(plan: QueryPlan): SQL {
  if (plan.terms.length === 0) return sql`0`;
  const parts = plan.terms.map((t, i) => {
    const p = sql.raw(`m.p${i}`);
    const tfn = sql`(${num(W_TITLE)} * coalesce((${p} ->> 0)::float8, 0) / m.title_norm
      + ${num(W_BODY)} * coalesce((${p} ->> 1)::float8, 0) / m.body_norm)`;
    return sql`${num(t.weight * idf(plan.n, t.df))} * ${tfn} * ${num(K1 + 1)} / (${num(K1)} + ${tfn})`;
  });
  return sql.join(parts, sql` + `);
}
