import { type SQL, sql } from 'drizzle-orm';

/**
 * BM25F-style scoring, described in ARCHITECTURE.md. For each query term t in document d:
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

const n = (value: number) => sql.raw(String(value));

/**
 * `m` is a matched document (title_len, body_len), `f.pair` its [title tf, body tf] for term `t`
 * (term, weight, idf), `stats` the collection.
 */
export function termScoreSql(): SQL {
  const tfn = sql`(
      ${n(W_TITLE)} * (f.pair ->> 0)::float8
        / (${n(1 - B)} + ${n(B)} * m.title_len / stats.avg_title)
    + ${n(W_BODY)} * (f.pair ->> 1)::float8
        / (${n(1 - B)} + ${n(B)} * m.body_len / stats.avg_body))`;
  return sql`t.weight * t.idf * (${tfn} * ${n(K1 + 1)}) / (${n(K1)} + ${tfn})`;
}

export function idfSql(): SQL {
  return sql`ln(1 + (stats.n - st.df + 0.5) / (st.df + 0.5))`;
}
