import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { buildFromDocuments, rewriteAll } from './blocks';
import type { References } from './codec';
import { lockMerges, recordMerged } from './merge-state';
import { queryRows, type Scope } from './sql';

/**
 * Impact-ordered postings (stored compressed in `search_blocks`, blocks.ts). A posting's impact is its lexeme's
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

export type { References };

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
 * Recomputes every posting of the collection with the live averages as the new references: from
 * its blocks (a rebase: the frequencies and lengths are in the postings), or from its documents
 * (a new collection, a new language, data converted from before blocks). Runs in the caller's
 * transaction, with the collection row locked; waits for a background merge of the collection to end
 * (merge-state.ts), and leaves nothing to merge.
 */
export async function rebuildPostings(
  db: Db,
  scope: Scope,
  from: 'blocks' | 'documents' = 'documents',
): Promise<void> {
  const { accountId: a, collection: c } = scope;
  await lockMerges(db, scope);
  const rows = await queryRows<{ n: number; tl: number; bl: number; gen: number }>(
    db,
    sql`select doc_count::float8 as n, title_len_sum::float8 as tl, body_len_sum::float8 as bl,
          block_gen::float8 as gen
        from search_collections where account_id = ${a} and name = ${c}`,
  );
  const row = rows[0];
  if (!row) return;
  const refs = liveAverages(row.n, row.tl, row.bl);
  await db.execute(
    sql`update search_collections set impact_title_avg = ${f8(refs.title)}, impact_body_avg = ${f8(refs.body)}
        where account_id = ${a} and name = ${c}`,
  );
  if (from === 'blocks') await rewriteAll(db, scope, refs, row.gen);
  else await buildFromDocuments(db, scope, refs, row.gen);
  await recordMerged(db, scope, row.gen);
}

/**
 * Builds the postings of collections that have documents but no references: those written before
 * compressed postings (the migration to blocks clears the references, and until this runs their
 * searches score every match, which needs no postings). Run in the background once the server
 * listens (maintenance.ts); one transaction per collection, its row locked as writers lock it.
 * `stopping` is asked between collections.
 */
export async function convertCollections(db: Db, stopping: () => boolean = () => false): Promise<number> {
  const pending = await queryRows<{ account_id: string; name: string }>(
    db,
    sql`select account_id, name from search_collections
        where impact_title_avg is null and doc_count > 0 order by account_id, name`,
  );
  let converted = 0;
  for (const p of pending) {
    if (stopping()) break;
    const scope = { accountId: p.account_id, collection: p.name };
    const done = await db.transaction(async (tx) => {
      const locked = await queryRows<{ name: string }>(
        tx,
        sql`select name from search_collections where account_id = ${scope.accountId} and name = ${scope.collection}
            and impact_title_avg is null for update`,
      );
      if (locked.length === 0) return false;
      await rebuildPostings(tx as unknown as Db, scope, 'documents');
      return true;
    });
    if (done) converted++;
  }
  return converted;
}
