import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  analyseFromCache,
  chainOf,
  missingAnalysisSql,
  rememberAnalysis,
  safeWords,
} from '../../src/modules/search/analysis';
import { collectionVersionSql } from '../../src/modules/search/collections';
import { buildKeywordPlan, type CollectionRow, planKeyword } from '../../src/modules/search/plan';
import type { QueryPlan } from '../../src/modules/search/query-plan';
import { queryRows } from '../../src/modules/search/sql';
import { parseQuery } from '../../src/modules/search/syntax';
import { createAccountWithKey } from '../helpers/fixtures';
import { rng } from '../helpers/search-proof';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * A query's analysis from the caches (analysis.ts) must build exactly the plan the plan statement
 * builds (plan.ts): the same tsquery, scored terms and weights, phrases and highlights, for random
 * queries of words Postgres's parser reads in every way (stop words, stems, digits, punctuation it
 * splits on or keeps: hosts, compounds, accents), every operator, in three languages.
 */
let server: TestServer;
let key: string;
let accountId: string;

const PIECES = [
  'Systems',
  'system',
  'running',
  'runs',
  'the',
  'of',
  'and',
  'a',
  'is',
  'what',
  "it's",
  "don't",
  'systems.',
  '(note)',
  '[x]',
  '{y}',
  'what?!',
  'a*b',
  'a;b',
  'end:',
  'e.g.',
  'U.S.',
  'real-time',
  'state-of-the-art',
  'C++',
  'a:b',
  'foo_bar',
  'naïve',
  'Häuser',
  'über',
  '1985',
  '1985.',
  'x86',
  '1.5',
  '3rd',
  '--x',
  ';;',
  "'quoted'",
  '.net',
  '...',
  'http://example.com/a',
  'me@example.com',
  'memories',
  'memory',
  'computer',
  'computers',
  'programming',
  'language',
  'languages',
  'data',
  'MEMORY',
  'algorithm,',
  'search',
  'searching',
];

function randomQuery(random: () => number): { query: string; operator: 'or' | 'and' } {
  const pick = () => PIECES[Math.floor(random() * PIECES.length)] as string;
  const parts: string[] = [];
  const n = 1 + Math.floor(random() * 8);
  for (let k = 0; k < n; k++) {
    const u = random();
    if (u < 0.5) parts.push(pick());
    else if (u < 0.6) parts.push(`+${pick()}`);
    else if (u < 0.7) parts.push(`-${pick()}`);
    else if (u < 0.88)
      parts.push(`"${Array.from({ length: 1 + Math.floor(random() * 4) }, pick).join(' ')}"`);
    else parts.push(`${pick()} OR ${pick()}${random() < 0.3 ? ` OR "${pick()} ${pick()}"` : ''}`);
  }
  // Repeats weigh a word more (1 + ln(times)), up to the 255 positions Postgres keeps.
  if (random() < 0.1) parts.push(Array.from({ length: 300 }, () => 'memory').join(' '));
  return { query: parts.join(' '), operator: random() < 0.25 ? 'and' : 'or' };
}

/** A plan as data: matchAnyOf (a function) by what it gives for a subset of the terms. */
function comparable(plan: QueryPlan | undefined) {
  if (!plan) return plan;
  const { matchAnyOf, ...rest } = plan;
  const terms = plan.terms.map((t) => t.term);
  return { ...rest, anyOf: matchAnyOf?.(terms.filter((_, i) => i % 2 === 0)) };
}

async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  expect(res.status, await res.clone().text()).toBeLessThan(300);
}

beforeAll(async () => {
  server = await startTestServer({ env: { PLAN_FREE_RPM: '100000' } });
  const created = await createAccountWithKey(server);
  key = created.key.key;
  accountId = created.account.id;
  const random = rng(11);
  const text = () => Array.from({ length: 40 }, () => PIECES[Math.floor(random() * PIECES.length)]).join(' ');
  for (const language of ['english', 'simple', 'german']) {
    await api('PUT', `/api/documents/collections/${language}`, { language });
    await api('POST', '/api/documents', {
      collection: language,
      documents: Array.from({ length: 30 }, (_, i) => ({ id: `d${i}`, title: text(), text: text() })),
    });
  }
}, 120_000);
afterAll(async () => {
  await server?.close();
});

describe('query analysis from the caches', () => {
  it('splits only pieces Postgres reads as separate words', () => {
    expect(safeWords("(It's)")).toEqual(['it', 's']);
    expect(safeWords('systems.')).toEqual(['systems']);
    expect(safeWords('e.g.')).toBeUndefined();
    expect(safeWords('real-time')).toBeUndefined();
    expect(safeWords('naïve')).toBeUndefined();
    expect(chainOf([['a'], [], ['b'], ['c']])).toBe("'a' <2> 'b' <-> 'c'");
    expect(chainOf([[], ['a'], []])).toBe("'a'");
    expect(chainOf([['a', 'b']])).toBeUndefined();
  });

  it('builds the plan statement’s plan for random queries in three languages', async () => {
    const { db } = server.services.ctx;
    const random = rng(2024);
    let fromCache = 0;
    for (let q = 0; q < 240; q++) {
      const language = ['english', 'simple', 'german'][q % 3] as string;
      const { query, operator } = randomQuery(random);
      const parsed = parseQuery(query);
      const scope = { accountId, collection: language };
      const expected = await planKeyword(db, scope, parsed, operator);
      let analysed = analyseFromCache(language, parsed);
      if ('missing' in analysed) {
        const [out] = await queryRows<Parameters<typeof rememberAnalysis>[1]>(
          db,
          sql`select ${missingAnalysisSql(sql`${language}::regconfig`, analysed.missing)}`,
        );
        rememberAnalysis(language, out ?? { words: null, pieces: null, units: null });
        analysed = analyseFromCache(language, parsed);
      } else fromCache++;
      expect('analysis' in analysed, query).toBe(true);
      if (!('analysis' in analysed) || !expected) continue;
      const dfs = new Map(
        (
          await queryRows<{ term: string; df: number }>(
            db,
            sql`select term, df from search_terms where account_id = ${accountId} and collection = ${language}`,
          )
        ).map((t) => [t.term, t.df]),
      );
      const [row] = await queryRows<CollectionRow>(
        db,
        sql`select c.language, c.doc_count::float8 as n, c.title_len_sum::float8 as tl,
            c.body_len_sum::float8 as bl, c.impact_title_avg as rt, c.impact_body_avg as rb,
            ${collectionVersionSql('c')} as version
          from search_collections c where c.account_id = ${accountId} and c.name = ${language}`,
      );
      if (!row) throw new Error(`no collection ${language}`);
      const built = buildKeywordPlan(parsed, operator, 32, row, analysed.analysis, (t) => dfs.get(t) ?? 0);
      expect(comparable(built), `${language}: ${query} (${operator})`).toEqual(comparable(expected));
    }
    // Later queries reuse what earlier ones analysed: the path without a statement is exercised.
    expect(fromCache).toBeGreaterThan(40);
  }, 120_000);
});
