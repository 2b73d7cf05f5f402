import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/client';
import { planFuzzy } from '../../src/modules/search/fuzzy';
import { createAccountWithKey } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
let key: string;
let accountId: string;

async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  // biome-ignore lint/suspicious/noExplicitAny: assertions walk arbitrary JSON
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}
const search = (body: Record<string, unknown>) => api('POST', '/api/search', body);
const ids = async (body: Record<string, unknown>) => {
  const res = await search(body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body.data as { id: string }[]).map((d) => d.id);
};
const index = async (collection: string, documents: Record<string, unknown>[]) => {
  const res = await api('POST', '/api/documents', { collection, documents });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
};

beforeAll(async () => {
  server = await startTestServer({ env: { PLAN_FREE_RPM: '100000' } });
  const created = await createAccountWithKey(server);
  key = created.key.key;
  accountId = created.account.id;
  await index('animals', [
    { id: 'fox', title: 'The quick fox', text: 'A quick brown fox jumps over the lazy dog.' },
    { id: 'dogs', title: 'Dogs', text: 'Dogs are running in the park; the dog lazy on the grass.' },
    { id: 'cat', title: 'Cats', text: 'A cat sleeps. The fox watches the cat.' },
    { id: 'bird', title: 'Birds', text: 'Birds sing at dawn.' },
  ]);
});
afterAll(async () => {
  await server?.close();
});

describe('keyword syntax', () => {
  it('stems and drops stop words', async () => {
    expect(await ids({ collection: 'animals', query: 'run' })).toEqual(['dogs']);
    expect((await ids({ collection: 'animals', query: 'the foxes' })).sort()).toEqual(['cat', 'fox']);
  });
  it('quoted phrases need the words in order', async () => {
    expect(await ids({ collection: 'animals', query: '"lazy dog"' })).toEqual(['fox']);
    expect(await ids({ collection: 'animals', query: '"dog lazy"' })).toEqual(['dogs']);
  });
  it('-word excludes and OR widens', async () => {
    expect(await ids({ collection: 'animals', query: 'fox -cat' })).toEqual(['fox']);
    expect((await ids({ collection: 'animals', query: 'birds OR cats' })).sort()).toEqual(['bird', 'cat']);
    expect(await ids({ collection: 'animals', query: 'birds cats', operator: 'and' })).toEqual([]);
  });
  it('any word matches (ranked OR): more and rarer words rank first', async () => {
    // 'fox' is in two documents, 'lazy' in two, 'brown' in one: fox holds all three.
    const ranked = await ids({ collection: 'animals', query: 'lazy brown fox' });
    expect(ranked[0]).toBe('fox');
    expect(ranked.slice(1).sort()).toEqual(['cat', 'dogs']);
    expect((await ids({ collection: 'animals', query: 'birds cats' })).sort()).toEqual(['bird', 'cat']);
    // A word nobody wrote does not empty the result.
    expect(await ids({ collection: 'animals', query: 'which birds sing zyzzyva' })).toEqual(['bird']);
  });
  it('+word is required, and optional words then only rank', async () => {
    expect(await ids({ collection: 'animals', query: '+lazy fox' })).toEqual(['fox', 'dogs']);
    expect(await ids({ collection: 'animals', query: '+lazy +park' })).toEqual(['dogs']);
    expect(await ids({ collection: 'animals', query: 'fox +"lazy dog"' })).toEqual(['fox']);
  });
  it('operator "and" requires every word; OR groups and phrases keep their meaning', async () => {
    expect(await ids({ collection: 'animals', query: 'quick fox', operator: 'and' })).toEqual(['fox']);
    const either = await ids({ collection: 'animals', query: 'fox sleeps OR jumps', operator: 'and' });
    expect(either.sort()).toEqual(['cat', 'fox']);
    expect(await ids({ collection: 'animals', query: 'fox "lazy dog"', operator: 'and' })).toEqual(['fox']);
    expect(await ids({ collection: 'animals', query: 'fox -quick', operator: 'and' })).toEqual(['cat']);
  });
  it('a phrase among plain words is one of the alternatives; alone, it is what matches', async () => {
    expect(await ids({ collection: 'animals', query: '"dog lazy"' })).toEqual(['dogs']);
    expect((await ids({ collection: 'animals', query: '"dog lazy" birds' })).sort()).toEqual([
      'bird',
      'dogs',
    ]);
  });
  it('answers questions and pasted paragraphs up to 10,000 characters', async () => {
    const question = 'Which animals are sleeping in the afternoon, and what does the fox watch? ';
    expect((await ids({ collection: 'animals', query: question }))[0]).toBe('cat');
    const paragraph = `${'Somewhere far away a bird was singing while everybody slept. '.repeat(160)}`;
    expect(paragraph.length).toBeLessThanOrEqual(10_000);
    expect(await ids({ collection: 'animals', query: paragraph })).toContain('bird');
    const tooLong = await search({ collection: 'animals', query: 'x'.repeat(10_001) });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.param).toBe('query');
  });
  it('a query of stop words only, or of punctuation, finds nothing without failing', async () => {
    expect(await ids({ collection: 'animals', query: 'the and of' })).toEqual([]);
    expect(await ids({ collection: 'animals', query: '"(&|!:*' })).toEqual([]);
    expect(await ids({ collection: 'no-such-collection', query: 'fox' })).toEqual([]);
  });
});

describe('ranking', () => {
  beforeAll(async () => {
    const filler = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed eiusmod ';
    await index('rank', [
      { id: 'body-only', title: 'Notes', text: `The telescope was pointed at the sky. ${filler.repeat(2)}` },
      { id: 'in-title', title: 'Telescope', text: `Notes about optics and mirrors. ${filler.repeat(2)}` },
      { id: 'long', title: 'Diary', text: `telescope ${filler.repeat(10)}` },
      { id: 'twins-b', title: 'Twin', text: 'microscope slide' },
      { id: 'twins-a', title: 'Twin', text: 'microscope slide' },
      { id: 'many', title: 'Repeat', text: 'microscope microscope microscope microscope microscope slide' },
    ]);
  });
  it('weighs title over body, and a short document over a long one with the same frequency', async () => {
    expect(await ids({ collection: 'rank', query: 'telescope' })).toEqual(['in-title', 'body-only', 'long']);
  });
  it('saturates term frequency and breaks ties by id', async () => {
    const res = await search({ collection: 'rank', query: 'microscope' });
    const [many, a, b] = res.body.data as { id: string; score: number }[];
    expect([many?.id, a?.id, b?.id]).toEqual(['many', 'twins-a', 'twins-b']);
    expect(a?.score).toBe(b?.score);
    // Five occurrences score well under five times one (BM25 saturation, k1 = 1.2).
    expect((many?.score ?? 0) / (a?.score ?? 1)).toBeLessThan(2);
  });
});

describe('snippets', () => {
  it('marks the matched terms and escapes HTML in the document', async () => {
    await index('html', [
      {
        id: 'h1',
        title: '<b>Title</b>',
        text: 'Intro <script>alert("x")</script> & more text. The payload word sits here <img src=x onerror=alert(1)> end.',
      },
    ]);
    const res = await search({ collection: 'html', query: 'payload' });
    const hit = res.body.data[0] as { snippet: string; title: string };
    expect(hit.snippet).toContain('<mark>payload</mark>');
    expect(hit.snippet).toContain('&lt;');
    expect(hit.snippet).not.toMatch(/<(?!\/?mark>)/);
    expect(hit.snippet).not.toContain('\u0002');
    expect(hit.title).toBe('<b>Title</b>');
  });

  it('shows the passages holding the matches, every analysed form of a query word marked', async () => {
    const filler = (word: string) => Array.from({ length: 80 }, (_, i) => `${word}${i}`).join(' ');
    await index('passages', [
      {
        id: 'p1',
        text: `${filler('lorem')} The Rivers were flowing. ${filler('ipsum')} A river flows; riverside caféS. ${filler('dolor')}`,
      },
    ]);
    const hit = (await search({ collection: 'passages', query: 'river flowed' })).body.data[0] as {
      snippet: string;
    };
    // Two fragments around the matches, not the document's first words; stems marked, not mere prefixes.
    expect(hit.snippet).not.toContain('lorem0 ');
    expect(hit.snippet).toContain('<mark>Rivers</mark> were <mark>flowing</mark>');
    expect(hit.snippet).toContain(' … ');
    expect(hit.snippet).toContain('<mark>river</mark> <mark>flows</mark>; riverside');
    // Nothing to mark (an exclusion alone): the first words.
    const first = (await search({ collection: 'passages', query: '-nothing' })).body.data[0] as {
      snippet: string;
    };
    expect(first.snippet.startsWith('lorem0 lorem1')).toBe(true);
    expect(first.snippet).not.toContain('<mark>');
  });
});

describe('fuzzy mode', () => {
  beforeAll(async () => {
    await index('fuzzy', [
      { id: 'se', title: 'Search engines', text: 'How a search engine ranks documents by relevance.' },
      { id: 'db', title: 'Databases', text: 'Postgres stores tables and indexes.' },
    ]);
  });
  it('finds documents despite misspellings that keyword mode misses', async () => {
    expect(await ids({ collection: 'fuzzy', query: 'serch engnes' })).toEqual([]);
    expect(await ids({ collection: 'fuzzy', query: 'serch engnes', mode: 'fuzzy' })).toEqual(['se']);
    expect(await ids({ collection: 'fuzzy', query: 'postgress tabels', mode: 'fuzzy' })).toEqual(['db']);
    const hit = (await search({ collection: 'fuzzy', query: 'relevanse', mode: 'fuzzy' })).body.data[0];
    expect(hit.snippet).toContain('<mark>relevance</mark>');
  });
  it('ranks like keyword mode: a word like nothing indexed only matters with operator "and"', async () => {
    expect(await ids({ collection: 'fuzzy', query: 'xyzzyq', mode: 'fuzzy' })).toEqual([]);
    expect(
      await ids({ collection: 'fuzzy', query: 'search xyzzyq', mode: 'fuzzy', operator: 'and' }),
    ).toEqual([]);
    expect(await ids({ collection: 'fuzzy', query: 'search xyzzyq', mode: 'fuzzy' })).not.toEqual([]);
  });
  it("plans in one statement: the collection, its statistics and every word's similar terms", async () => {
    const db = server.services.ctx.db;
    let statements = 0;
    const counting = new Proxy(db, {
      get(target, prop) {
        const value = Reflect.get(target, prop);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (prop === 'execute') statements++;
          return value.apply(target, args);
        };
      },
    }) as Db;
    const scope = { accountId, collection: 'fuzzy' };
    const plan = await planFuzzy(counting, scope, 'serch engnes xyzzyq', 'or');
    expect(statements).toBe(1);
    expect(plan?.n).toBe(2);
    expect(plan?.version).toMatch(/\/english$/);
    expect(plan?.terms.map((t) => t.term).sort()).toEqual(expect.arrayContaining(['engin', 'search']));
    expect(plan?.terms.every((t) => t.weight > 0.3 && t.weight < 1 && t.df === 1)).toBe(true);
    // Operator "and": one word like nothing indexed, nothing matches; the words that are, every one.
    expect((await planFuzzy(counting, scope, 'serch xyzzyq', 'and'))?.tsquery).toBeNull();
    expect((await planFuzzy(counting, scope, 'serch engnes', 'and'))?.tsquery).toMatch(/^\(.*\) & \(.*\)$/);
    expect(
      await planFuzzy(counting, { accountId, collection: 'nothing-here' }, 'serch', 'or'),
    ).toBeUndefined();
    expect(statements).toBe(4);
  });
});

describe('languages', () => {
  it('a simple collection neither stems nor drops stop words', async () => {
    const put = await api('PUT', '/api/documents/collections/code', { language: 'simple' });
    expect(put.body).toMatchObject({ name: 'code', language: 'simple' });
    await index('code', [{ id: 'c1', text: 'the running_total of getUserName' }]);
    expect(await ids({ collection: 'code', query: 'run' })).toEqual([]);
    expect(await ids({ collection: 'code', query: 'the' })).toEqual(['c1']);
    expect(await ids({ collection: 'code', query: 'getusername' })).toEqual(['c1']);
  });
  it('changing the language re-analyses the documents', async () => {
    await api('PUT', '/api/documents/collections/code', { language: 'english' });
    expect(await ids({ collection: 'code', query: 'run' })).toEqual(['c1']);
    const bad = await api('PUT', '/api/documents/collections/code', { language: 'klingon' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('language');
  });
});

describe('filters', () => {
  beforeAll(async () => {
    await index('shop', [
      {
        id: 's1',
        text: 'red shoe',
        metadata: { price: 10, color: 'red', at: '2024-01-10', tags: { sale: true } },
      },
      { id: 's2', text: 'blue shoe', metadata: { price: 25.5, color: 'blue', at: '2024-03-01T12:00:00Z' } },
      { id: 's3', text: 'green shoe', metadata: { price: '99', color: 'green', at: 'not a date' } },
      { id: 's4', text: 'black shoe', metadata: { price: 1e300, color: 'black', at: '2025-06-01' } },
    ]);
  });
  const q = (filter: unknown) => ids({ collection: 'shop', query: 'shoe', filter }).then((r) => r.sort());
  it('equality, in, ne and nested fields', async () => {
    expect(await q({ color: 'red' })).toEqual(['s1']);
    expect(await q({ color: { in: ['red', 'blue'] } })).toEqual(['s1', 's2']);
    expect(await q({ color: { ne: 'red' } })).toEqual(['s2', 's3', 's4']);
    expect(await q({ 'tags.sale': true })).toEqual(['s1']);
    expect(await q({ price: 10 })).toEqual(['s1']);
  });
  it('numeric ranges only match numbers', async () => {
    expect(await q({ price: { gte: 10, lt: 30 } })).toEqual(['s1', 's2']);
    expect(await q({ price: { gt: 50 } })).toEqual(['s4']);
  });
  it('date ranges only match dates', async () => {
    expect(await q({ at: { gte: '2024-02-01' } })).toEqual(['s2', 's4']);
    expect(await q({ at: { lt: '2024-03-01T12:00:00Z' } })).toEqual(['s1']);
    const bad = await search({ collection: 'shop', query: 'shoe', filter: { at: { gt: 'yesterday' } } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('filter.at.gt');
  });
});

describe('pagination', () => {
  beforeAll(async () => {
    // Scores repeat (same text twice) so that ties cross page boundaries.
    const documents = Array.from({ length: 23 }, (_, i) => ({
      id: `n${String(i).padStart(2, '0')}`,
      text: `needle ${'hay '.repeat(i % 5)}${i % 3 === 0 ? 'needle' : ''}`,
    }));
    await index('pages', documents);
  });
  it('cursor pages cover every hit once, in the order of one big page', async () => {
    const all = await ids({ collection: 'pages', query: 'needle', limit: 100 });
    expect(all).toHaveLength(23);
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 10; i++) {
      const res = await search({ collection: 'pages', query: 'needle', limit: 5, ...(cursor && { cursor }) });
      expect(res.status).toBe(200);
      seen.push(...res.body.data.map((d: { id: string }) => d.id));
      cursor = res.body.next_cursor;
      expect(res.body.has_more).toBe(cursor !== null);
      if (!cursor) break;
    }
    expect(seen).toEqual(all);
  });
  it('offset pages agree with the cursor', async () => {
    const all = await ids({ collection: 'pages', query: 'needle', limit: 100 });
    expect(await ids({ collection: 'pages', query: 'needle', limit: 5, offset: 10 })).toEqual(
      all.slice(10, 15),
    );
  });
  it('refuses a cursor from another query, and cursor with offset', async () => {
    const first = await search({ collection: 'pages', query: 'needle', limit: 5 });
    const other = await search({ collection: 'pages', query: 'hay', cursor: first.body.next_cursor });
    expect(other.status).toBe(400);
    expect(other.body.error.code).toBe('invalid_cursor');
    const both = await search({
      collection: 'pages',
      query: 'needle',
      cursor: first.body.next_cursor,
      offset: 5,
    });
    expect(both.status).toBe(400);
  });
});

describe('bad input', () => {
  it.each([
    [{}, 'query'],
    [{ query: 'x', limit: 0 }, 'limit'],
    [{ query: 'x', limit: 101 }, 'limit'],
    [{ query: 'x', mode: 'semantic' }, 'mode'],
    [{ query: 'x', filter: [] }, 'filter'],
    [{ query: 'x', filter: { a: { between: [1, 2] } } }, 'filter.a'],
    [{ query: 'x', collection: 'bad name' }, 'collection'],
    [{ query: 'x', extra: 1 }, null],
  ])('%j → 400 naming %s', async (body, param) => {
    const res = await search(body);
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
    if (param) expect(res.body.error.param).toBe(param);
  });
});
