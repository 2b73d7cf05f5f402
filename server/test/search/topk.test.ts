import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchDocuments } from '../../src/modules/search';
import { mergeRuns, readAllPostings } from '../../src/modules/search/blocks';
import { queryRows } from '../../src/modules/search/sql';
import { createAccountWithKey } from '../helpers/fixtures';
import { expectCollectionPostingsExact, generated, word } from '../helpers/search-proof';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * Top-k over impact-ordered postings must return exactly what scoring every match returns. The
 * server answers HTTP with top-k tried for every query (threshold 0); the oracle is the same
 * search, in-process on the same database, with top-k switched off. A generated collection with a
 * small Zipf vocabulary makes every query term common, so lists are long and the bounds matter.
 */
let server: TestServer;
let key: string;
let accountId: string;

async function api(method: string, path: string, body?: unknown, bearer = key) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  // biome-ignore lint/suspicious/noExplicitAny: assertions walk arbitrary JSON
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

async function index(documents: Record<string, unknown>[], bearer = key) {
  for (let i = 0; i < documents.length; i += 100) {
    const res = await api(
      'POST',
      '/api/documents',
      { collection: 'gen', documents: documents.slice(i, i + 100) },
      bearer,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
}

type Hit = { id: string; score: number };
const strategies: string[] = [];

/** The oracle: every match scored, in-process on the server's database. */
async function fullScoring(body: Record<string, unknown>) {
  const res = await searchDocuments({
    ctx: server.services.ctx,
    accountId,
    input: { collection: 'gen', mode: 'keyword', operator: 'or', limit: 10, ...body } as never,
    // Phrases checked on the documents too: the oracle for phrase.ts's candidates from positions.
    options: { topKMinMatches: Number.POSITIVE_INFINITY, phrasePositions: false },
  });
  return res;
}

/**
 * The same search as the server answers it (top-k first), over HTTP; and in-process starting from
 * very short lists and a tiny verification budget, so that bounds, growth and fallback all run on
 * this small collection. Both must equal the oracle; records which path answered the second.
 */
async function topK(body: Record<string, unknown>) {
  const shallow = await searchDocuments({
    ctx: server.services.ctx,
    accountId,
    input: { collection: 'gen', mode: 'keyword', operator: 'or', limit: 10, ...body } as never,
    options: {
      topKMinMatches: 0,
      topKStart: { depth: 8, verify: 16, firstStep: 12 },
      onStrategy: (s) => strategies.push(s.kind),
    },
  });
  const res = await api('POST', '/api/search', { collection: 'gen', ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(pick(shallow.data), JSON.stringify(body)).toEqual(pick(res.body.data as Hit[]));
  expect(shallow.next_cursor === null).toBe(res.body.next_cursor === null);
  return res.body;
}

const pick = (hits: Hit[]) => hits.map((h) => ({ id: h.id, score: h.score }));

async function expectSame(body: Record<string, unknown>) {
  const [expected, actual] = [await fullScoring(body), await topK(body)];
  expect(pick(actual.data), JSON.stringify(body)).toEqual(pick(expected.data));
  expect(actual.has_more, JSON.stringify(body)).toBe(expected.has_more);
  return actual;
}

/** Walks every cursor page of both paths; the concatenations must be equal, without gaps or repeats. */
async function expectSamePages(body: Record<string, unknown>, maxPages = 8) {
  const walk = async (
    run: (b: Record<string, unknown>) => Promise<{ data: Hit[]; next_cursor: string | null }>,
  ) => {
    const out: Hit[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < maxPages; page++) {
      const res = await run(cursor ? { ...body, cursor } : body);
      out.push(...pick(res.data));
      cursor = res.next_cursor;
      if (!cursor) break;
    }
    return out;
  };
  const expected = await walk(fullScoring as never);
  const actual = await walk(topK as never);
  expect(actual, JSON.stringify(body)).toEqual(expected);
  expect(new Set(actual.map((h) => h.id)).size).toBe(actual.length);
  return actual;
}

const QUERIES: Record<string, unknown>[] = [
  { query: word(0) },
  { query: word(1) },
  { query: word(5) },
  { query: word(20) },
  { query: `${word(0)} ${word(1)}` },
  { query: `${word(2)} ${word(7)}` },
  { query: `${word(1)} OR ${word(3)}` },
  { query: `${word(4)} OR ${word(9)} OR ${word(30)}` },
  { query: `"${word(0)} ${word(1)}"` },
  // Phrases from positions (phrase.ts): required with other words, excluded words, a filter, "and".
  { query: `+"${word(1)} ${word(0)}" ${word(3)} ${word(12)}` },
  { query: `"${word(2)} ${word(0)} ${word(1)}" -${word(5)}`, limit: 5 },
  { query: `"${word(0)} ${word(0)}"`, filter: { group: 'c' } },
  { query: `"${word(3)} ${word(1)}" ${word(4)}`, operator: 'and' },
  { query: `${word(0)} -${word(2)}` },
  { query: `${word(3)} OR -${word(0)}` },
  { query: word(2), filter: { group: 'b' } },
  { query: `${word(0)} OR ${word(6)}`, filter: { n: { gte: 100, lt: 400 } } },
  { query: word(1), filter: { n: { lt: 30 } } },
  { query: `${word(0)}q`, mode: 'fuzzy' },
  // Questions: many optional words, common and rare (top-k, else MaxScore-pruned full scoring).
  { query: [0, 1, 2, 8, 15, 30, 45, 59].map(word).join(' ') },
  { query: `what is ${[0, 3, 6, 21, 52].map(word).join(' and ')}? -${word(4)}`, limit: 30 },
  { query: [1, 2, 3, 4, 40].map(word).join(' '), offset: 25 },
  { query: word(0), limit: 1 },
  { query: word(3), limit: 50 },
];

async function expectAllSame() {
  for (const q of QUERIES) await expectSame(q);
  for (const offset of [0, 7, 30, 120]) await expectSame({ query: `${word(1)} OR ${word(2)}`, offset });
  await expectSamePages({ query: word(1), limit: 7 });
  await expectSamePages({ query: `${word(0)} OR ${word(4)}`, limit: 25, filter: { group: 'a' } });
}

/** Every collection's postings exact (search-proof.ts); dead ones at most the replaced or deleted documents'. */
async function expectPostingsExact() {
  const db = server.services.ctx.db;
  const collections = await queryRows<{ account_id: string; name: string }>(
    db,
    sql`select account_id, name from search_collections`,
  );
  expect(collections.length).toBeGreaterThan(1);
  for (const col of collections) {
    const { live, dead } = await expectCollectionPostingsExact(db, {
      accountId: col.account_id,
      collection: col.name,
    });
    expect(dead).toBeLessThanOrEqual(live);
  }
}

beforeAll(async () => {
  server = await startTestServer({
    env: { PLAN_FREE_RPM: '100000' },
    config: { searchLimits: { maxBatchDocuments: 100, maxDocumentBytes: 100_000, topKMinMatches: 0 } },
  });
  const created = await createAccountWithKey(server);
  key = created.key.key;
  accountId = created.account.id;
  // Another account's collection of the same name, same ids, other words: must never show up.
  const other = await createAccountWithKey(server);
  await index(
    Array.from({ length: 150 }, (_, i) => generated(i, 99, 40)),
    other.key.key,
  );
  await index(Array.from({ length: 600 }, (_, i) => generated(i, 1)));
}, 240_000);
afterAll(async () => {
  await server?.close();
});

describe('top-k over impact-ordered postings', () => {
  it('returns the same hits, scores and order as scoring every match', async () => {
    strategies.length = 0;
    await expectAllSame();
    // The comparison is only worth something if top-k answered most queries itself.
    const proven = strategies.filter((s) => s === 'topk').length;
    expect(proven, strategies.join(',')).toBeGreaterThan(strategies.length / 2);
  }, 240_000);

  it('reads a short list whole and verifies every copy tied with the page in its first round', async () => {
    // 3 texts, 100 copies each: every copy of a text scores the same, so the page's last hit ties with
    // 99 others, all of which must be verified before it is proven (the default budget verifies 66).
    const texts = [
      'quasarword alpha beta gamma',
      'quasarword quasarword delta',
      'epsilon quasarword zeta eta theta iota',
    ];
    const documents = Array.from({ length: 300 }, (_, i) => ({
      id: `dup${String(i).padStart(3, '0')}`,
      text: texts[i % 3],
    }));
    for (let i = 0; i < documents.length; i += 100) {
      const put = await api('POST', '/api/documents', {
        collection: 'dups',
        documents: documents.slice(i, i + 100),
      });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
    }
    for (const limit of [10, 40]) {
      const input = {
        collection: 'dups',
        mode: 'keyword',
        operator: 'or',
        query: 'quasarword',
        limit,
      } as never;
      const seen: { kind: string; rounds?: number; wholeLists?: number }[] = [];
      const viaTopK = await searchDocuments({
        ctx: server.services.ctx,
        accountId,
        input,
        options: { topKMinMatches: 0, onStrategy: (s) => seen.push(s) },
      });
      const full = await searchDocuments({
        ctx: server.services.ctx,
        accountId,
        input,
        options: { topKMinMatches: Number.POSITIVE_INFINITY },
      });
      expect(pick(viaTopK.data)).toEqual(pick(full.data));
      expect(viaTopK.has_more).toBe(full.has_more);
      expect(seen).toEqual([expect.objectContaining({ kind: 'topk', rounds: 1, wholeLists: 1 })]);
    }
  });

  it('narrows full scoring of questions by MaxScore when top-k gives up, with the same results', async () => {
    const questions = [
      { query: [0, 1, 2, 8, 15, 30, 45, 59].map(word).join(' ') },
      { query: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14].map(word).join(' '), limit: 3 },
      { query: `${[0, 1, 2, 25, 33].map(word).join(' ')} -${word(3)}`, limit: 5 },
    ];
    const seen: string[] = [];
    for (const body of questions) {
      const narrowed = await searchDocuments({
        ctx: server.services.ctx,
        accountId,
        input: { collection: 'gen', mode: 'keyword', operator: 'or', limit: 10, ...body } as never,
        options: {
          topKMinMatches: 0,
          topKStart: { depth: 8, verify: 16, firstStep: 12, maxRounds: 1 },
          onStrategy: (s) => seen.push(s.kind),
        },
      });
      expect(pick(narrowed.data), JSON.stringify(body)).toEqual(pick((await fullScoring(body)).data));
    }
    // Each gave up after its one round; where common words could be left out, MaxScore did.
    expect(seen.filter((s) => s === 'fallback')).toHaveLength(questions.length);
    expect(seen.filter((s) => s === 'maxscore').length, seen.join(',')).toBeGreaterThanOrEqual(2);
  }, 240_000);

  it('reads the essential lists of long queries whole (MaxScore depths), with the same results', async () => {
    const long = [
      { query: Array.from({ length: 60 }, (_, r) => word(r)).join(' ') },
      { query: [0, 1, 2, 3, 5, 8, 13, 21, 34, 55].map(word).join(' ') },
      { query: Array.from({ length: 30 }, (_, r) => word(59 - r)).join(' '), limit: 5 },
      { query: [1, 2, 3, 40, 41, 42, 43, 44].map(word).join(' '), offset: 20 },
      { query: `${[0, 1, 2, 30, 31, 32, 33].map(word).join(' ')} -${word(5)}` },
    ];
    const seen: { kind: string; wholeLists?: number; estimated?: boolean }[] = [];
    for (const body of long) {
      const res = await searchDocuments({
        ctx: server.services.ctx,
        accountId,
        input: { collection: 'gen', mode: 'keyword', operator: 'or', limit: 10, ...body } as never,
        options: {
          topKMinMatches: 0,
          topKStart: { depth: 8, verify: 64, firstStep: 32 },
          onStrategy: (s) => seen.push(s),
        },
      });
      expect(pick(res.data), JSON.stringify(body)).toEqual(pick((await fullScoring(body)).data));
      expect(res.has_more).toBe((await fullScoring(body)).has_more);
    }
    // Top-k proved most of these pages after reading some lists to their end.
    const whole = seen.filter((s) => s.kind === 'topk' && (s.wholeLists ?? 0) > 0);
    expect(whole.length, JSON.stringify(seen)).toBeGreaterThanOrEqual(3);
    // Most chose those lists from the first round's seen shares, without verifying anything first.
    expect(whole.filter((s) => s.estimated).length, JSON.stringify(seen)).toBeGreaterThanOrEqual(3);
  }, 240_000);

  it('keeps postings exact through replaces and deletes, and results equal after them', async () => {
    await index(Array.from({ length: 80 }, (_, i) => generated(i * 7, 2)));
    for (const id of ['g0003', 'g0010', 'g0599']) {
      expect((await api('DELETE', `/api/documents/${id}?collection=gen`)).status).toBe(200);
    }
    await expectPostingsExact();
    await expectAllSame();
  }, 240_000);

  it('merges every run in small groups: dead postings dropped, the rest exact, results equal', async () => {
    const db = server.services.ctx.db;
    const scope = { accountId, collection: 'gen' };
    const [refs] = await queryRows<{ title: number; body: number; gen: number }>(
      db,
      sql`select impact_title_avg as title, impact_body_avg as body, block_gen as gen from search_collections
          where account_id = ${accountId} and name = 'gen'`,
    );
    const dead = async () => {
      const live = await queryRows<{ ord: number }>(
        db,
        sql`select ord::float8 as ord from search_documents where account_id = ${accountId} and collection = 'gen'`,
      );
      const ords = new Set(live.map((r) => r.ord));
      return (await readAllPostings(db, scope)).filter((p) => !ords.has(p.ord)).length;
    };
    // The deletes and replaces above left dead postings in runs no merge has reached yet.
    expect(await dead()).toBeGreaterThan(0);
    const upToGen = refs?.gen ?? 0;
    await db.transaction(async (tx) =>
      mergeRuns(tx, scope, refs as never, { maxLevel: 32_767, target: 3, upToGen, chunkPostings: 50 }),
    );
    expect(await dead()).toBe(0);
    const levels = await queryRows<{ level: number }>(
      db,
      sql`select distinct level::int as level from search_blocks where account_id = ${accountId} and collection = 'gen'`,
    );
    expect(levels).toEqual([{ level: 3 }]);
    await expectPostingsExact();
    await expectAllSame();
  }, 240_000);

  it('stays exact when the averages drift (stale references) and after they are rebased', async () => {
    // Longer documents move the average body length up, but less than the rebase ratio first …
    await index(Array.from({ length: 60 }, (_, i) => generated(1000 + i, 3, 24)));
    const refs = async () =>
      queryRows<{ rt: number; rb: number; avg: number }>(
        server.services.ctx.db,
        sql`select impact_title_avg as rt, impact_body_avg as rb, body_len_sum::float8 / doc_count as avg
            from search_collections where account_id = ${accountId} and name = 'gen'`,
      );
    const [before] = await refs();
    expect(before && before.avg / before.rb).toBeGreaterThan(1.02);
    await expectAllSame();
    // … then well past it: the postings are rebuilt with the new averages.
    await index(Array.from({ length: 400 }, (_, i) => generated(2000 + i, 4, 60)));
    const [after] = await refs();
    // Rebased at some batch: the references moved, and the live average is within the ratio of them.
    expect(after?.rb).toBeGreaterThan((before?.rb ?? 0) * 1.2);
    expect((after?.avg ?? 0) / (after?.rb ?? 1)).toBeLessThanOrEqual(1.25);
    await expectPostingsExact();
    await expectAllSame();
  }, 240_000);

  it('rebuilds postings when the language changes', async () => {
    const res = await api('PUT', '/api/documents/collections/gen', { language: 'simple' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await expectPostingsExact();
    await expectSame({ query: word(1) });
    await expectSame({ query: `${word(2)} OR ${word(3)}` });
  }, 240_000);
});
