import { sql } from 'drizzle-orm';
import { expect } from 'vitest';
import type { Ctx } from '../../src/context';
import type { Db } from '../../src/db/client';
import { searchDocuments } from '../../src/modules/search';
import { readAllPostings } from '../../src/modules/search/blocks';
import { impactOf } from '../../src/modules/search/codec';
import { queryRows } from '../../src/modules/search/sql';

/**
 * The proof that top-k is exact, shared by the search tests: a generated collection whose words follow Zipf's law
 * over a small vocabulary (every query term is common, lists are long and the bounds matter), top-k started from
 * tiny lists compared with scoring every match, and the stored postings compared with the documents.
 */
const SYLLABLES = ['ka', 'lo', 'mi', 'ru', 'te', 'sa', 'no', 'vi', 'da', 'pe'];
export const word = (rank: number) => `${SYLLABLES[rank % 10]}${SYLLABLES[Math.floor(rank / 10) % 10]}x`;

export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Words by Zipf's law over a 60-word vocabulary: the first ten are in most documents. */
function zipfWord(random: () => number): string {
  const weights = Array.from({ length: 60 }, (_, r) => 1 / (r + 1));
  let u = random() * weights.reduce((x, y) => x + y, 0);
  for (let r = 0; r < weights.length; r++) {
    u -= weights[r] ?? 0;
    if (u <= 0) return word(r);
  }
  return word(59);
}

export function generated(i: number, seed: number, bodyWords = 12) {
  const random = rng(i * 7 + seed);
  const words = (n: number) => Array.from({ length: n }, () => zipfWord(random)).join(' ');
  return {
    id: `g${String(i).padStart(4, '0')}`,
    title: words(1 + Math.floor(random() * 4)),
    text: words(bodyWords + Math.floor(random() * bodyWords)),
    metadata: { n: i, group: ['a', 'b', 'c'][i % 3] },
  };
}

type Hit = { id: string; score: number };
const pick = (hits: Hit[]) => hits.map((h) => ({ id: h.id, score: h.score }));

/** Top-k from very short lists (bounds, growth and fallback all run) answers exactly as scoring every match. */
export async function expectTopKExact(
  ctx: Pick<Ctx, 'db'>,
  accountId: string,
  collection: string,
  queries: Record<string, unknown>[],
): Promise<string[]> {
  const strategies: string[] = [];
  for (const body of queries) {
    const input = { collection, mode: 'keyword', operator: 'or', limit: 10, ...body } as never;
    const topk = await searchDocuments({
      ctx: ctx as never,
      accountId,
      input,
      options: {
        topKMinMatches: 0,
        topKStart: { depth: 8, verify: 16, firstStep: 12 },
        onStrategy: (s) => strategies.push(s.kind),
      },
    });
    const full = await searchDocuments({
      ctx: ctx as never,
      accountId,
      input,
      options: { topKMinMatches: Number.POSITIVE_INFINITY, phrasePositions: false },
    });
    expect(pick(topk.data), JSON.stringify(body)).toEqual(pick(full.data));
    expect(topk.has_more, JSON.stringify(body)).toBe(full.has_more);
  }
  return strategies;
}

/**
 * Every live document's lexemes of the collection have exactly one posting, with its frequencies and lengths;
 * any other posting names a dead ordinal; no block's max_impact understates one of its postings.
 */
export async function expectCollectionPostingsExact(
  db: Db,
  scope: { accountId: string; collection: string },
) {
  const [col] = await queryRows<{ rt: number; rb: number }>(
    db,
    sql`select impact_title_avg as rt, impact_body_avg as rb from search_collections
        where account_id = ${scope.accountId} and name = ${scope.collection}`,
  );
  const docs = await queryRows<{ ord: number; tf: Record<string, [number, number]>; tl: number; bl: number }>(
    db,
    sql`select ord::float8 as ord, tf, title_len as tl, body_len as bl from search_documents
        where account_id = ${scope.accountId} and collection = ${scope.collection}`,
  );
  const expected = new Map<string, string>();
  for (const d of docs) {
    for (const [term, [tt, tb]] of Object.entries(d.tf)) {
      expected.set(`${term}\u0000${d.ord}`, [tt, tb, d.tl, d.bl].join(','));
    }
  }
  const live = new Set(docs.map((d) => d.ord));
  const actual = new Map<string, string>();
  let dead = 0;
  for (const p of await readAllPostings(db, scope)) {
    expect(impactOf(p.tt, p.tb, p.tl, p.bl, { title: col?.rt ?? 1, body: col?.rb ?? 1 })).toBeLessThanOrEqual(
      p.maxImpact,
    );
    if (!live.has(p.ord)) {
      dead++;
      continue;
    }
    const k = `${p.term}\u0000${p.ord}`;
    expect(actual.has(k), k).toBe(false);
    actual.set(k, [p.tt, p.tb, p.tl, p.bl].join(','));
  }
  expect(actual).toEqual(expected);
  return { live: expected.size, dead };
}
