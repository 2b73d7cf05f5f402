import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MERGE_FANOUT } from '../../src/modules/search/blocks';
import { queryRows } from '../../src/modules/search/sql';
import { usingPostgres } from '../helpers/database';
import { createAccountWithKey } from '../helpers/fixtures';
import { expectCollectionPostingsExact, expectTopKExact, generated, word } from '../helpers/search-proof';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * Merges of blocks run in the background (modules/search/merges.ts), not in the write that makes them due: the
 * tests hold the merger at its hooks to look at the index before and during a merge.
 */
let server: TestServer;
let key: string;
let accountId: string;
const scope = () => ({ accountId, collection: 'm' });

/** A gate the merger waits at while closed. */
function gate() {
  let open: () => void = () => {};
  let opened = Promise.resolve();
  return {
    close() {
      opened = new Promise((resolve) => {
        open = resolve;
      });
    },
    open: () => open(),
    wait: () => opened,
  };
}
const beforeMerge = gate();
const duringMerge = gate();
/** Resolved when the merger has read its inputs and waits at duringMerge. */
let inMerge: () => void = () => {};
let reachedMerge = Promise.resolve();

let next = 0;
async function writeBatch(n: number, seed = 1) {
  const documents = Array.from({ length: n }, () => generated(next++, seed));
  const res = await fetch(`${server.url}/api/documents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ collection: 'm', documents }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  await res.json();
}

/** (level, runs) of the collection: a run is a level's blocks of one write batch or merge. */
async function runs() {
  return queryRows<{ level: number; runs: number }>(
    server.services.ctx.db,
    sql`select level::int as level, count(distinct gen)::int as runs from search_blocks
        where account_id = ${accountId} and collection = 'm' group by level order by level`,
  );
}

const QUERIES = [
  { query: word(0) },
  { query: `${word(1)} OR ${word(3)}` },
  { query: `${word(2)} ${word(7)} ${word(30)}` },
  { query: `"${word(0)} ${word(1)}"` },
  { query: `${word(0)} -${word(2)}`, limit: 5 },
];
const expectExact = () => expectTopKExact(server.services.ctx, accountId, 'm', QUERIES);

beforeAll(async () => {
  server = await startTestServer({
    env: { PLAN_FREE_RPM: '100000' },
    config: { searchLimits: { maxBatchDocuments: 100, maxDocumentBytes: 100_000, topKMinMatches: 0 } },
    searchHooks: {
      beforeMerge: () => beforeMerge.wait(),
      duringMerge: async () => {
        inMerge();
        await duringMerge.wait();
      },
    },
  });
  // Statistics refreshes run at once (statistics.test.ts covers their interval): idle() waits for them too.
  server.services.searchMaintenance.analyzeIntervalMs = 0;
  const created = await createAccountWithKey(server);
  key = created.key.key;
  accountId = created.account.id;
}, 120_000);
afterAll(async () => {
  beforeMerge.open();
  duringMerge.open();
  await server?.close();
});

describe(`merges of search blocks in the background (${usingPostgres() ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('writes append level-0 runs and return; the merger then merges them a level up, results exact throughout', async () => {
    const maintenance = server.services.searchMaintenance;
    // The first write builds the collection's postings (one run); the counter counts the batches after it.
    await writeBatch(10);
    beforeMerge.close();
    for (let i = 0; i < MERGE_FANOUT; i++) await writeBatch(10);
    // The eighth made a merge due and returned without doing it.
    expect(await runs()).toEqual([{ level: 0, runs: MERGE_FANOUT + 1 }]);
    expect(maintenance.mergesRun).toBe(0);
    const strategies = await expectExact();
    expect(strategies.filter((s) => s === 'topk').length, strategies.join()).toBeGreaterThan(0);
    beforeMerge.open();
    await maintenance.idle();
    expect(maintenance.mergesRun).toBe(1);
    expect(await runs()).toEqual([{ level: 1, runs: 1 }]);
    await expectCollectionPostingsExact(server.services.ctx.db, scope());
    await expectExact();

    // Levels as the write-time schedule had them: at FANOUT² batches everything is one run at level 2.
    for (let i = MERGE_FANOUT; i < MERGE_FANOUT * MERGE_FANOUT; i++) await writeBatch(4);
    await maintenance.idle();
    expect(await runs()).toEqual([{ level: 2, runs: 1 }]);
    await expectCollectionPostingsExact(server.services.ctx.db, scope());
    await expectExact();
  }, 240_000);

  it('loses nothing written, replaced or deleted while a merge runs', async () => {
    const maintenance = server.services.searchMaintenance;
    const db = server.services.ctx.db;
    const [{ gen } = { gen: 0 }] = await queryRows<{ gen: number }>(
      db,
      sql`select block_gen as gen from search_collections where account_id = ${accountId} and name = 'm'`,
    );
    // Up to one batch before a merge is due; the next write makes it due and the merger stops inside it.
    for (let g = gen; (g + 1) % MERGE_FANOUT !== 0; g++) await writeBatch(5);
    const merges = maintenance.mergesRun;
    duringMerge.close();
    reachedMerge = new Promise((resolve) => {
      inMerge = resolve;
    });
    await writeBatch(5);
    await reachedMerge;
    // Meanwhile: new documents, replaced ones (their old postings are in the runs being merged) and a delete.
    next -= 3;
    const writes = [writeBatch(6, 2), writeBatch(3, 3)];
    const deleted = fetch(`${server.url}/api/documents/g0010?collection=m`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${key}` },
    });
    if (usingPostgres()) {
      // Writers do not wait for the merge (it holds no lock they take), and searches stay exact during it.
      await Promise.all(writes);
      expect((await deleted).status).toBe(200);
      await expectExact();
    }
    duringMerge.open();
    await Promise.all(writes);
    expect((await deleted).status).toBe(200);
    await maintenance.idle();
    expect(maintenance.mergesRun).toBe(merges + 1);
    // The runs appended during the merge stay at level 0; the merged one is a level up.
    const after = await runs();
    expect(after.find((r) => r.level === 0)?.runs).toBe(2);
    expect(after.find((r) => r.level === 1)?.runs).toBe(1);
    const { live } = await expectCollectionPostingsExact(db, scope());
    expect(live).toBeGreaterThan(0);
    await expectExact();
  }, 240_000);

  it('finds merges left due by another instance on its sweep', async () => {
    const maintenance = server.services.searchMaintenance;
    const db = server.services.ctx.db;
    // As if the instance that wrote the batch had stopped before merging: the record is behind by a merge.
    await db.execute(
      sql`update search_merges set merged_gen = merged_gen - ${MERGE_FANOUT} where account_id = ${accountId}`,
    );
    const merges = maintenance.mergesRun;
    await maintenance.sweep();
    await maintenance.idle();
    expect(maintenance.mergesRun).toBe(merges + 1);
    await maintenance.sweep();
    await maintenance.idle();
    expect(maintenance.mergesRun).toBe(merges + 1);
    await expectCollectionPostingsExact(db, scope());
    await expectExact();
  }, 120_000);
});
