import { type SQL, sql } from 'drizzle-orm';
import { B, idf, K1, W_BODY, W_TITLE } from './bm25';
import type { QueryPlan } from './query-plan';
import { textArrayLiteral } from './sql';

const num = (value: number) => sql.raw(Number.isFinite(value) ? String(value) : '0');

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
