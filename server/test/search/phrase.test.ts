import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/client';
import { searchDocuments } from '../../src/modules/search';
import { readAllPostings } from '../../src/modules/search/blocks';
import { rebuildPostings } from '../../src/modules/search/postings';
import { queryRows } from '../../src/modules/search/sql';
import { createAccountWithKey } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * Phrases from positions (phrase.ts) must answer exactly what checking `tsv @@ phrase` on the
 * documents answers. The server answers over HTTP (positions used); the oracle is the same search
 * in-process with positions switched off. The collection is built so that the position arithmetic
 * has every chance to go wrong: words repeated next to each other, stop words and punctuation
 * between words, phrases that run from the end of the title into the body.
 */
let server: TestServer;
let key: string;
let accountId: string;

const WORDS = ['river', 'stone', 'garden', 'market', 'lantern', 'violet'];
const GLUE = [' ', ' ', ' ', ', ', '. ', ' - ', ' the ', ' of the ', ' and ', '; '];

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function text(random: () => number, words: number): string {
  let out = '';
  for (let i = 0; i < words; i++) {
    // Repeats on purpose: "river river stone" and the like.
    const word = WORDS[Math.floor(random() * random() * WORDS.length)] as string;
    out += (i === 0 ? '' : (GLUE[Math.floor(random() * GLUE.length)] as string)) + word;
  }
  return out;
}

function documents(count: number, seed: number) {
  return Array.from({ length: count }, (_, i) => {
    const random = rng(seed * 10_007 + i);
    return {
      id: `p${String(i).padStart(4, '0')}`,
      title: text(random, 1 + Math.floor(random() * 3)),
      text: text(random, 4 + Math.floor(random() * 14)),
      metadata: { n: i, group: ['a', 'b', 'c'][i % 3] },
    };
  });
}

async function api(path: string, body: unknown) {
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: assertions walk arbitrary JSON
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

type Hit = { id: string; score: number };
const pick = (hits: Hit[]) => hits.map((h) => ({ id: h.id, score: h.score }));

/** Every page of a search, concatenated: over HTTP, or in-process with the given options. */
async function allPages(
  body: Record<string, unknown>,
  inProcess?: Parameters<typeof searchDocuments>[0]['options'],
) {
  const out: Hit[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 20; page++) {
    const request = { collection: 'phr', limit: 100, ...body, ...(cursor && { cursor }) };
    let res: { data: Hit[]; next_cursor: string | null };
    if (inProcess) {
      res = await searchDocuments({
        ctx: server.services.ctx,
        accountId,
        input: { mode: 'keyword', operator: 'or', ...request } as never,
        options: inProcess,
      });
    } else {
      const http = await api('/api/search', request);
      expect(http.status, JSON.stringify(http.body)).toBe(200);
      res = http.body as never;
    }
    out.push(...pick(res.data));
    cursor = res.next_cursor;
    if (!cursor) return out;
  }
  throw new Error('more pages than expected');
}

const QUERIES: Record<string, unknown>[] = [
  { query: '"river stone"' },
  { query: '"stone river"' },
  { query: '"river river"' },
  { query: '"river river river"' },
  { query: '"river stone garden"' },
  // Stop words inside the phrase keep their place (phraseto_tsquery: <2>, <3>).
  { query: '"river of the stone"' },
  { query: '"river the stone"' },
  { query: '"garden and river"' },
  // Punctuation is no word: "river, stone" is the phrase "river stone".
  { query: '"river, stone"' },
  { query: '"stone. river"' },
  { query: '"stone-river"' },
  // Required phrase with other words, an excluded word, a filter, operator "and".
  { query: '+"river stone" garden market' },
  { query: '"stone river" -garden' },
  { query: '"river stone"', filter: { group: 'b' } },
  { query: '"river stone" market', operator: 'and' },
  { query: '"river stone" OR "garden market"' },
];

/** Searches that use positions: candidates counted; the paths taken are recorded. */
const strategies: string[] = [];

async function expectSameAsDocumentCheck(query: Record<string, unknown>) {
  const expected = await allPages(query, {
    phrasePositions: false,
    topKMinMatches: Number.POSITIVE_INFINITY,
  });
  const http = await allPages(query);
  // Positions for every phrase, whatever the expected number of matches (the server uses them
  // only when few are expected; top-k answers the others).
  const positions = await allPages(query, {
    phraseMaxExpected: Number.POSITIVE_INFINITY,
    onStrategy: (s) => strategies.push(s.kind),
  });
  expect(http, JSON.stringify(query)).toEqual(expected);
  expect(positions, JSON.stringify(query)).toEqual(expected);
  return expected;
}

beforeAll(async () => {
  // Every page of every query over HTTP: more than the free plan's requests a minute.
  server = await startTestServer({ env: { PLAN_FREE_RPM: '100000' } });
  const created = await createAccountWithKey(server);
  key = created.key.key;
  accountId = created.account.id;
  // Several batches: several runs (and merges) of blocks, and replaced documents (dead postings).
  const docs = documents(900, 1);
  for (let i = 0; i < docs.length; i += 100) {
    const res = await api('/api/documents', { collection: 'phr', documents: docs.slice(i, i + 100) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  const replaced = documents(100, 2);
  const res = await api('/api/documents', { collection: 'phr', documents: replaced });
  expect(res.status).toBe(200);
  // A phrase across the title and the body: the body's positions follow the title's.
  const boundary = await api('/api/documents', {
    collection: 'phr',
    documents: [
      { id: 'boundary', title: 'lantern violet river', text: 'stone lantern' },
      { id: 'boundary2', title: 'violet', text: 'violet violet' },
    ],
  });
  expect(boundary.status).toBe(200);
}, 120_000);

afterAll(async () => {
  await server?.close();
});

describe('phrases from positions', () => {
  it('answer exactly what checking the documents answers, for every phrase shape', async () => {
    strategies.length = 0;
    let nonEmpty = 0;
    for (const q of QUERIES) {
      const hits = await expectSameAsDocumentCheck(q);
      if (hits.length > 0) nonEmpty++;
    }
    // The fixture must exercise the answers (not only agree on nothing) and the positions path.
    expect(nonEmpty).toBeGreaterThanOrEqual(12);
    expect(strategies.filter((s) => s === 'phrase').length).toBeGreaterThanOrEqual(10);

    const across = await allPages({ query: '"river stone lantern"' });
    expect(across.map((h) => h.id)).toContain('boundary');
    await expectSameAsDocumentCheck({ query: '"river stone lantern"' });
    await expectSameAsDocumentCheck({ query: '"violet violet violet"' });
  }, 180_000);

  it('visits only the best-scored candidates for a small page, and answers the same page', async () => {
    const counts: number[] = [];
    const run = (body: Record<string, unknown>, options: Parameters<typeof searchDocuments>[0]['options']) =>
      searchDocuments({
        ctx: server.services.ctx,
        accountId,
        input: { mode: 'keyword', operator: 'or', collection: 'phr', ...body } as never,
        options,
      });
    for (const q of QUERIES) {
      for (const page of [{ limit: 3 }, { limit: 5, offset: 40 }, { limit: 1 }]) {
        const expected = await run({ ...q, ...page }, { phrasePositions: false, topKMinMatches: Infinity });
        const got = await run(
          { ...q, ...page },
          {
            phraseMaxExpected: Number.POSITIVE_INFINITY,
            onStrategy: (s) => {
              if (s.kind === 'phrase') counts.push(s.candidates);
            },
          },
        );
        expect(pick(got.data), JSON.stringify({ ...q, ...page })).toEqual(pick(expected.data));
        expect(got.has_more).toBe(expected.has_more);
        if (!expected.next_cursor || page.limit !== 3) continue;
        // The next page by cursor: the keyset is checked on the visited candidates too.
        const next = { ...q, ...page, cursor: expected.next_cursor };
        const expectedNext = await run(next, { phrasePositions: false, topKMinMatches: Infinity });
        const gotNext = await run(next, { phraseMaxExpected: Number.POSITIVE_INFINITY });
        expect(pick(gotNext.data), JSON.stringify(next)).toEqual(pick(expectedNext.data));
      }
    }
    // Some phrase had more candidates than a small page visits at first (phrase-rank.ts).
    expect(Math.max(...counts)).toBeGreaterThan(256);
  }, 180_000);

  it('keeps the tsvector positions in the blocks', async () => {
    const postings = await readAllPostings(server.services.ctx.db, { accountId, collection: 'phr' });
    const rows = await queryRows<{ ord: number }>(
      server.services.ctx.db,
      sql`select ord::float8 as ord from search_documents where account_id = ${accountId} and collection = 'phr' and id = 'boundary'`,
    );
    const ord = rows[0]?.ord;
    expect(ord).toBeDefined();
    const of = (term: string) => postings.find((p) => p.term === term && p.ord === ord)?.pos;
    // Title "lantern violet river" (1-3), body "stone lantern" (4-5).
    expect(of('lantern')).toEqual([1, 5]);
    expect(of('violet')).toEqual([2]);
    expect(of('river')).toEqual([3]);
    expect(of('stone')).toEqual([4]);
  });

  it('answers the same from blocks without positions (stored before them), and after a rebuild', async () => {
    const db = server.services.ctx.db as Db;
    const scope = { accountId, collection: 'phr' };
    const before = await allPages({ query: '"river stone"' });
    await db.execute(
      sql`update search_blocks set pos = null where account_id = ${accountId} and collection = 'phr'`,
    );
    strategies.length = 0;
    for (const q of QUERIES.slice(0, 6)) await expectSameAsDocumentCheck(q);
    expect(strategies).not.toContain('phrase');
    expect(await allPages({ query: '"river stone"' })).toEqual(before);

    await db.transaction(async (tx) => rebuildPostings(tx as unknown as Db, scope, 'documents'));
    strategies.length = 0;
    for (const q of QUERIES.slice(0, 6)) await expectSameAsDocumentCheck(q);
    expect(strategies).toContain('phrase');
    expect(await allPages({ query: '"river stone"' })).toEqual(before);
  }, 180_000);
});
