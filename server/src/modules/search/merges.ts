import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { dueLevel, MAX_LEVEL, MERGE_FANOUT, mergeRuns } from './blocks';
import { recordMerged, tryLockMerges } from './merge-state';
import { queryRows, type Scope } from './sql';

export type MergeOutcome =
  | { kind: 'merged'; level: number; gen: number }
  | { kind: 'nothing due' }
  /** Another merge or a rebuild of the collection holds its merge lock (perhaps on another instance). */
  | { kind: 'busy' };

/**
 * Runs the merge a collection has due, in a transaction of its own (merge-state.ts says why writers do not
 * wait for it): the runs of every level up to the highest due one, of the batches committed when it read
 * the counter, into one run per term a level up. Searches see the old runs or the merged ones.
 */
export async function mergeDue(db: Db, scope: Scope, afterRead?: () => Promise<void>): Promise<MergeOutcome> {
  return db.transaction(async (tx) => {
    const t = tx as unknown as Db;
    if (!(await tryLockMerges(t, scope))) return { kind: 'busy' };
    // The references cannot change under the lock (a rebase takes it); the counter may, by writes after it.
    const rows = await queryRows<{ gen: number; merged: number; title: number | null; body: number | null }>(
      t,
      sql`select c.block_gen::float8 as gen, coalesce(m.merged_gen, 0)::float8 as merged,
            c.impact_title_avg as title, c.impact_body_avg as body
          from search_collections c
          left join search_merges m on m.account_id = c.account_id and m.collection = c.name
          where c.account_id = ${scope.accountId} and c.name = ${scope.collection}`,
    );
    const row = rows[0];
    if (!row || row.title === null || row.body === null) return { kind: 'nothing due' };
    const level = dueLevel(row.merged, row.gen);
    if (level < 0) return { kind: 'nothing due' };
    await mergeRuns(
      t,
      scope,
      { title: row.title, body: row.body },
      {
        maxLevel: level,
        target: Math.min(level + 1, MAX_LEVEL),
        upToGen: row.gen,
        ...(afterRead && { afterRead }),
      },
    );
    await recordMerged(t, scope, row.gen);
    return { kind: 'merged', level, gen: row.gen };
  });
}

/** Collections with a merge due (left by an instance that stopped, or whose wake-up was lost), a page of them. */
export async function collectionsDue(db: Db, limit = 100): Promise<Scope[]> {
  // A merge of some level is due exactly when one of level 0 is: the counter passed a multiple of FANOUT.
  const rows = await queryRows<{ account_id: string; name: string }>(
    db,
    sql`select c.account_id, c.name from search_collections c
        left join search_merges m on m.account_id = c.account_id and m.collection = c.name
        where c.impact_title_avg is not null
          and c.block_gen / ${MERGE_FANOUT}::int > coalesce(m.merged_gen, 0) / ${MERGE_FANOUT}::int
        limit ${limit}`,
  );
  return rows.map((r) => ({ accountId: r.account_id, collection: r.name }));
}
