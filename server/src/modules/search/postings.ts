import { type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { B, W_BODY, W_TITLE } from './rank';
import { queryRows, type Scope } from './sql';

/**
 * Impact-ordered postings (table `search_postings`). A posting's impact is its lexeme's
 * field-weighted, length-normalised frequency, the tf~ of the BM25F formula, computed with the
 * collection's *reference* averages rather than the live ones:
 *   impact = W_TITLE·tf_title/(1−B+B·len_title/ref_title) + W_BODY·tf_body/(1−B+B·len_body/ref_body)
 * idf is left out (it is the same for every posting of a term) and so is saturation (monotone).
 * With live averages avg ≥ ref a field's true share is at most avg/ref times the stored one, and at
 * most the stored one when avg < ref; so tf~(live) ≤ R · impact with
 *   R = max(1, avg_title/ref_title, avg_body/ref_body),
 * which is what makes the top-k bound exact whatever writes happened since (topk.ts).
 * The references are rebased (every posting recomputed) when a live average drifts from its
 * reference by more than REBASE_RATIO either way, which keeps R close to 1.
 */
export const REBASE_RATIO = 1.25;

const f8 = (value: number) => sql.raw(`${String(value)}::float8`);

/** The impact of a posting as SQL, from its frequencies, the document's lengths and the references. */
export function impactSql(tt: SQL, tb: SQL, lt: SQL, lb: SQL, refTitle: SQL, refBody: SQL): SQL {
  return sql`((${f8(W_TITLE)} * (${tt})::float8 / (${f8(1 - B)} + ${f8(B)} * (${lt})::float8 / (${refTitle})::float8))
    + (${f8(W_BODY)} * (${tb})::float8 / (${f8(1 - B)} + ${f8(B)} * (${lb})::float8 / (${refBody})::float8)))::real`;
}

export interface References {
  title: number;
  body: number;
}

/** The collection's reference averages; undefined when it has no postings yet. */
export async function readReferences(db: Db, scope: Scope): Promise<References | undefined> {
  const rows = await queryRows<{ title: number | null; body: number | null }>(
    db,
    sql`select impact_title_avg as title, impact_body_avg as body from search_collections
        where account_id = ${scope.accountId} and name = ${scope.collection}`,
  );
  const row = rows[0];
  return row && row.title !== null && row.body !== null ? { title: row.title, body: row.body } : undefined;
}

/** The averages BM25F uses (plan.ts computes the same from the same statistics). */
export function liveAverages(docCount: number, titleLenSum: number, bodyLenSum: number): References {
  const n = Math.max(docCount, 1);
  return { title: Math.max(titleLenSum / n, 1), body: Math.max(bodyLenSum / n, 1) };
}

/** Whether the live averages have drifted far enough from the references to rebuild the postings. */
export function needsRebase(refs: References | undefined, live: References): boolean {
  if (!refs) return true;
  const drift = (a: number, b: number) => Math.max(a / b, b / a);
  return drift(live.title, refs.title) > REBASE_RATIO || drift(live.body, refs.body) > REBASE_RATIO;
}

/**
 * The postings of documents coming from `source` (rows with id, tf, title_len, body_len), as a
 * SELECT for `insert into search_postings`.
 */
export function postingRows(scope: Scope, source: SQL, refs: References): SQL {
  return sql`
    select ${scope.accountId}, ${scope.collection}, e.key,
      ${impactSql(
        sql`e.value ->> 0`,
        sql`e.value ->> 1`,
        sql`s.title_len`,
        sql`s.body_len`,
        f8(refs.title),
        f8(refs.body),
      )},
      s.id, (e.value ->> 0)::int, (e.value ->> 1)::int, s.title_len, s.body_len
    from (${source}) s cross join lateral jsonb_each(s.tf) e`;
}

export const POSTING_COLUMNS = sql.raw(
  'account_id, collection, term, impact, doc_id, title_tf, body_tf, title_len, body_len',
);

/**
 * Deletes the postings of documents from `source` (rows with id, tf, title_len, body_len, as they
 * were written), each found through the impact index by (term, impact, id). The impact is
 * recomputed as it was written (same references: every posting of a collection uses the current
 * ones), matched within a tiny tolerance so that a different float path cannot leave one behind.
 */
export function deletePostingsSql(scope: Scope, source: SQL, refs: { title: SQL; body: SQL }): SQL {
  const impact = impactSql(
    sql`e.value ->> 0`,
    sql`e.value ->> 1`,
    sql`s.title_len`,
    sql`s.body_len`,
    refs.title,
    refs.body,
  );
  return sql`
    delete from search_postings p
    using (select s.id, e.key as term, ${impact} as impact from (${source}) s cross join lateral jsonb_each(s.tf) e) x
    where p.account_id = ${scope.accountId} and p.collection = ${scope.collection} and p.term = x.term
      and p.impact between x.impact * 0.99999::real and x.impact * 1.00001::real and p.doc_id = x.id`;
}

/**
 * Recomputes every posting of the collection with the live averages as the new references. Runs
 * in the caller's transaction, with the collection row locked.
 */
export async function rebuildPostings(db: Db, scope: Scope): Promise<void> {
  const { accountId: a, collection: c } = scope;
  const rows = await queryRows<{ n: number; tl: number; bl: number }>(
    db,
    sql`select doc_count::float8 as n, title_len_sum::float8 as tl, body_len_sum::float8 as bl
        from search_collections where account_id = ${a} and name = ${c}`,
  );
  const row = rows[0];
  if (!row) return;
  const refs = liveAverages(row.n, row.tl, row.bl);
  await db.execute(sql`delete from search_postings where account_id = ${a} and collection = ${c}`);
  await db.execute(
    sql`update search_collections set impact_title_avg = ${f8(refs.title)}, impact_body_avg = ${f8(refs.body)}
        where account_id = ${a} and name = ${c}`,
  );
  const source = sql`select id, tf, title_len, body_len from search_documents where account_id = ${a} and collection = ${c}`;
  await db.execute(sql`insert into search_postings (${POSTING_COLUMNS}) ${postingRows(scope, source, refs)}`);
}
