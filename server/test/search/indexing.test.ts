import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analysedRows } from '../../src/modules/search/analyse';
import { queryRows } from '../../src/modules/search/sql';
import { createAccountWithKey } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
let key: string;
let otherKey: string;

beforeAll(async () => {
  server = await startTestServer({
    env: { PLAN_FREE_RPM: '100000', SEARCH_MAX_BATCH_DOCUMENTS: '5', SEARCH_MAX_DOCUMENT_BYTES: '2000' },
  });
  key = (await createAccountWithKey(server)).key.key;
  otherKey = (await createAccountWithKey(server)).key.key;
});
afterAll(async () => {
  await server?.close();
});

async function api(method: string, path: string, body?: unknown, as = key) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${as}`, 'content-type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  // biome-ignore lint/suspicious/noExplicitAny: assertions walk arbitrary JSON
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}
const search = (body: Record<string, unknown>, as = key) => api('POST', '/api/search', body, as);

describe('indexing', () => {
  it('adds one document with a generated id and reads it back', async () => {
    const put = await api('POST', '/api/documents', {
      title: 'Hello',
      text: 'A first document',
      metadata: { n: 1 },
    });
    expect(put.status).toBe(200);
    const id = put.body.data[0].id as string;
    expect(id).toMatch(/^doc_/);
    expect(put.body).toMatchObject({
      object: 'list',
      collection: 'default',
      data: [{ id, replaced: false }],
    });
    const got = await api('GET', `/api/documents/${id}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      object: 'document',
      id,
      collection: 'default',
      title: 'Hello',
      text: 'A first document',
      metadata: { n: 1 },
    });
  });

  it('accepts a title alone as a document, and finds it by its title', async () => {
    const put = await api('POST', '/api/documents', {
      collection: 'titles',
      documents: [
        { id: 't1', title: 'Compiling recursive procedures' },
        { id: 't2', title: 'Sorting' },
      ],
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const got = await api('GET', '/api/documents/t1?collection=titles');
    expect(got.body).toMatchObject({ title: 'Compiling recursive procedures', text: '' });
    const res = await search({ collection: 'titles', query: 'recursive procedure' });
    expect(res.body.data.map((d: { id: string }) => d.id)).toEqual(['t1']);
    const blank = await api('POST', '/api/documents', { collection: 'titles', title: '  ', text: '' });
    expect(blank.status).toBe(400);
    expect(blank.body.error.param).toBe('document.text');
  });

  it('replaces a document by id: the old text is no longer searchable, the new one is at once', async () => {
    await api('POST', '/api/documents', { collection: 'rep', id: 'r1', text: 'zebra crossing' });
    expect((await search({ collection: 'rep', query: 'zebra' })).body.data).toHaveLength(1);
    const again = await api('POST', '/api/documents', { collection: 'rep', id: 'r1', text: 'giraffe neck' });
    expect(again.body.data[0]).toMatchObject({ id: 'r1', replaced: true });
    expect((await search({ collection: 'rep', query: 'zebra' })).body.data).toHaveLength(0);
    expect(
      (await search({ collection: 'rep', query: 'giraffe' })).body.data.map((d: { id: string }) => d.id),
    ).toEqual(['r1']);
    expect((await api('GET', '/api/documents/collections/rep')).body).toMatchObject({
      document_count: 1,
      language: 'english',
    });
  });

  it('indexes a batch atomically: one bad item writes nothing and is named', async () => {
    const bad = await api('POST', '/api/documents', {
      collection: 'atomic',
      documents: [
        { id: 'a', text: 'fine' },
        { id: 'b', text: '' },
      ],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('documents[1].text');
    const dup = await api('POST', '/api/documents', {
      collection: 'atomic',
      documents: [
        { id: 'a', text: 'one' },
        { id: 'a', text: 'two' },
      ],
    });
    expect(dup.status).toBe(400);
    expect(dup.body.error).toMatchObject({ param: 'documents[1].id', code: 'duplicate_document_id' });
    const meta = await api('POST', '/api/documents', {
      collection: 'atomic',
      documents: [{ id: 'a', text: 'one', metadata: [1, 2] }],
    });
    expect(meta.status).toBe(400);
    expect(meta.body.error.param).toBe('documents[0].metadata');
    const big = await api('POST', '/api/documents', {
      collection: 'atomic',
      documents: [
        { id: 'a', text: 'ok' },
        { id: 'b', text: 'x'.repeat(3000) },
      ],
    });
    expect(big.status).toBe(413);
    expect(big.body.error).toMatchObject({ param: 'documents[1]', code: 'document_too_large' });
    const many = await api('POST', '/api/documents', {
      collection: 'atomic',
      documents: Array.from({ length: 6 }, (_, i) => ({ text: `doc ${i}` })),
    });
    expect(many.status).toBe(400);
    expect(many.body.error).toMatchObject({ param: 'documents', code: 'too_many_documents' });
    expect(many.body.error.message).toContain('5');
    expect((await api('GET', '/api/documents?collection=atomic')).body.data).toEqual([]);
    const ok = await api('POST', '/api/documents', {
      collection: 'atomic',
      documents: [
        { id: 'a', text: 'alpha' },
        { id: 'b', text: 'beta' },
      ],
    });
    expect(ok.status).toBe(200);
    expect(ok.body.data.map((d: { id: string }) => d.id)).toEqual(['a', 'b']);
  });

  it('refuses NUL characters and bad collection names with a 400 naming the field', async () => {
    const nul = await api('POST', '/api/documents', { text: 'a\u0000b' });
    expect(nul.status).toBe(400);
    expect(nul.body.error.param).toBe('document.text');
    const metaNul = await api('POST', '/api/documents', { text: 'ok', metadata: { k: 'a\u0000' } });
    expect(metaNul.status).toBe(400);
    expect(metaNul.body.error.param).toBe('document.metadata.k');
    const name = await api('POST', '/api/documents', { collection: '../x', text: 'ok' });
    expect(name.status).toBe(400);
    expect(name.body.error.param).toBe('collection');
  });

  it('lists a collection with a cursor, without gaps or repeats', async () => {
    const documents = Array.from({ length: 5 }, (_, i) => ({ id: `p${i}`, text: `page doc ${i}` }));
    await api('POST', '/api/documents', { collection: 'pages', documents });
    await api('POST', '/api/documents', { collection: 'pages', documents: [{ id: 'p5', text: 'last' }] });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof api>> = await api(
        'GET',
        `/api/documents?collection=pages&limit=4${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(page.status).toBe(200);
      seen.push(...page.body.data.map((d: { id: string }) => d.id));
      cursor = page.body.next_cursor;
      expect(page.body.has_more).toBe(cursor !== null);
    } while (cursor);
    expect(seen).toEqual(['p0', 'p1', 'p2', 'p3', 'p4', 'p5']);
    const bad = await api('GET', '/api/documents?collection=pages&cursor=nonsense');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_cursor');
  });

  it('deletes one document and a whole collection', async () => {
    await api('POST', '/api/documents', {
      collection: 'del',
      documents: [
        { id: 'd1', text: 'walrus' },
        { id: 'd2', text: 'walrus tusk' },
      ],
    });
    expect((await api('DELETE', '/api/documents/d1?collection=del')).body).toEqual({
      object: 'document',
      id: 'd1',
      deleted: true,
    });
    expect((await api('GET', '/api/documents/d1?collection=del')).status).toBe(404);
    expect((await api('DELETE', '/api/documents/d1?collection=del')).status).toBe(404);
    expect(
      (await search({ collection: 'del', query: 'walrus' })).body.data.map((d: { id: string }) => d.id),
    ).toEqual(['d2']);
    expect((await api('DELETE', '/api/documents/collections/del')).status).toBe(200);
    expect((await search({ collection: 'del', query: 'walrus' })).body.data).toEqual([]);
    expect((await api('GET', '/api/documents/collections/del')).status).toBe(404);
    expect((await api('DELETE', '/api/documents/collections/del')).body.error.code).toBe(
      'collection_not_found',
    );
  });

  it('concurrent batches into one collection all land, with exact statistics and no deadlock', async () => {
    const batches = Array.from({ length: 6 }, (_, b) =>
      api('POST', '/api/documents', {
        collection: 'busy',
        // Overlapping ids (replacements) and shared words (the same term rows) in every batch.
        documents: Array.from({ length: 5 }, (_, i) => ({
          id: `c${(b + i) % 8}`,
          text: `shared words batch ${b} item ${i}`,
        })),
      }),
    );
    for (const res of await Promise.all(batches)) expect(res.status).toBe(200);
    expect((await api('GET', '/api/documents/collections/busy')).body.document_count).toBe(8);
    const hits = await search({ collection: 'busy', query: 'shared words', limit: 100 });
    expect(hits.body.data).toHaveLength(8);
  });

  it('keeps accounts apart: another key sees, finds and deletes nothing of ours', async () => {
    await api('POST', '/api/documents', {
      collection: 'private',
      id: 'secret',
      text: 'confidential merger plans',
      metadata: { tenant: 'x' },
    });
    expect((await api('GET', '/api/documents/secret?collection=private', undefined, otherKey)).status).toBe(
      404,
    );
    expect((await api('GET', '/api/documents?collection=private', undefined, otherKey)).body.data).toEqual(
      [],
    );
    expect(
      (await search({ collection: 'private', query: 'merger', filter: { tenant: 'x' } }, otherKey)).body.data,
    ).toEqual([]);
    expect(
      (await search({ collection: 'private', query: 'mergr', mode: 'fuzzy' }, otherKey)).body.data,
    ).toEqual([]);
    expect(
      (await api('DELETE', '/api/documents/secret?collection=private', undefined, otherKey)).status,
    ).toBe(404);
    expect((await api('DELETE', '/api/documents/collections/private', undefined, otherKey)).status).toBe(404);
    expect((await search({ collection: 'private', query: 'merger' })).body.data).toHaveLength(1);
  });

  it("stores each document's analysis exactly as Postgres makes it, and the terms' document frequencies", async () => {
    // Quotes, backslashes, accents, a word repeated past the 256 positions Postgres keeps, a title.
    const documents = [
      { id: 'q1', title: "O'Brien's café", text: "it's a back\\slash \\'quoted' naïve café déjà-vu" },
      { id: 'q2', text: `${'echo '.repeat(300)}end`, title: 'Echo echo' },
      { id: 'q3', text: 'café au lait, 3.14 e-mail a@b.example https://x.example/p?q=1' },
    ];
    expect((await api('POST', '/api/documents', { collection: 'analysis', documents })).status).toBe(200);
    const db = server.services.ctx.db;
    const stored = sql`select id, title, body from search_documents where collection = 'analysis'`;
    const differing = await queryRows<{ id: string }>(
      db,
      sql`select d.id from search_documents d join (${analysedRows(stored, 'english')}) r using (id)
          where d.collection = 'analysis'
            and (d.tsv <> r.tsv or d.tf <> r.tf or d.title_len <> r.title_len or d.body_len <> r.body_len)`,
    );
    expect(differing).toEqual([]);
    const dfs = await queryRows<{ term: string; df: number; actual: number }>(
      db,
      sql`select t.term, t.df, (select count(*)::int from search_documents d
            where d.account_id = t.account_id and d.collection = 'analysis' and d.tf ? t.term) as actual
          from search_terms t where t.collection = 'analysis'`,
    );
    expect(dfs.length).toBeGreaterThan(10);
    for (const row of dfs) expect(row.df, row.term).toBe(row.actual);
    expect(dfs.find((r) => r.term === 'café')?.df).toBe(2);
  });
});
