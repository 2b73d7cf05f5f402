import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { queryRows, type Scope } from './sql';

/**
 * Who may rewrite a collection's blocks, and how far they are merged.
 *
 * Writers serialise on the collection row (collections.ts) and only append blocks. Whatever deletes or
 * rewrites blocks — a background merge, a rebase or a rebuild, a collection's deletion — first takes this
 * transaction-scoped advisory lock. A merge thus never interleaves with a rebase (its impacts would use
 * the old references after the rebase committed new ones), two instances never merge the same runs, and a
 * merge does not hold the writers' row lock, so writes go on while it runs. The order is always the row
 * first (writers that rebase, deletions), then this lock; a merge takes only this one, without waiting
 * (`try`): there is no cycle.
 */
const MERGE_LOCK_CLASS = 0x5e_a7c4;

const lockKey = (scope: Scope) =>
  sql`${MERGE_LOCK_CLASS}::int, hashtext(${scope.accountId} || '/' || ${scope.collection})`;

/** Waits for the collection's merge lock (held until the transaction ends). */
export async function lockMerges(db: Db, scope: Scope): Promise<void> {
  await db.execute(sql`select pg_advisory_xact_lock(${lockKey(scope)})`);
}

/** Takes the collection's merge lock if it is free; false when another merge or rebuild holds it. */
export async function tryLockMerges(db: Db, scope: Scope): Promise<boolean> {
  const rows = await queryRows<{ ok: boolean }>(
    db,
    sql`select pg_try_advisory_xact_lock(${lockKey(scope)}) as ok`,
  );
  return rows[0]?.ok === true;
}

/** Records that every merge due up to write batch `gen` is done (under the merge lock). */
export async function recordMerged(db: Db, scope: Scope, gen: number): Promise<void> {
  await db.execute(sql`
    insert into search_merges (account_id, collection, merged_gen)
    values (${scope.accountId}, ${scope.collection}, ${gen}::int)
    on conflict (account_id, collection) do update set merged_gen = excluded.merged_gen`);
}
