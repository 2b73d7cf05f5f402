import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountWithKey } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * A search's work is bounded before it starts (repeats removed, explicit parts capped, at most 32
 * scored terms, snippets over the scored terms only) and every statement has a time limit on
 * Postgres. Issue 27: `"flow "` repeated 200 times held a connection for up to a minute.
 */
let server: TestServer;
let key: string;

async function api(path: string, body: unknown, as = key) {
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${as}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: assertions walk arbitrary JSON
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

const WORDS = [
  'data',
  'flow',
  'analysis',
  'control',
  'graph',
  'compiler',
  'loop',
  'register',
  'value',
  'node',
];
/** Long documents where "flow" is everywhere: what makes highlighting a big query expensive. */
function longDocument(i: number) {
  const words = Array.from({ length: 3000 }, (_, j) => WORDS[(i * 7 + j * 13 + (j >> 3)) % WORDS.length]);
  return { id: `d${i}`, title: `Data flow ${i}`, text: words.join(' ') };
}

beforeAll(async () => {
  server = await startTestServer({ env: { PLAN_FREE_RPM: '100000' } });
  key = (await createAccountWithKey(server)).key.key;
  for (let i = 0; i < 120; i += 40) {
    const res = await api('/api/documents', {
      collection: 'long',
      documents: Array.from({ length: 40 }, (_, j) => longDocument(i + j)),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
}, 240_000);
afterAll(async () => {
  await server?.close();
});

describe('bounded search work', () => {
  it('answers "flow " repeated 200 times fast, at limit 10 and 100', async () => {
    for (const limit of [10, 100]) {
      const started = performance.now();
      const res = await api('/api/search', { collection: 'long', query: '"flow "'.repeat(200), limit });
      const ms = performance.now() - started;
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data).toHaveLength(limit);
      expect(res.body.data[0].snippet).toContain('<mark>flow</mark>');
      expect(ms, `limit ${limit}`).toBeLessThan(3_000);
    }
  }, 60_000);

  it('answers a pasted paragraph of 10,000 characters fast', async () => {
    const paragraph = Array.from({ length: 1400 }, (_, i) => `${WORDS[i % 10]}${i % 97}`)
      .join(' ')
      .slice(0, 9_990);
    const started = performance.now();
    const res = await api('/api/search', { collection: 'long', query: `flow ${paragraph}`, limit: 100 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.length).toBeGreaterThan(0);
    expect(performance.now() - started).toBeLessThan(3_000);
  }, 60_000);

  it('refuses more than 64 distinct quoted, required, excluded or OR-ed parts, naming the limit', async () => {
    const query = Array.from({ length: 65 }, (_, i) => `+w${i}`).join(' ');
    const res = await api('/api/search', { collection: 'long', query });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ param: 'query', code: 'too_many_query_parts' });
    expect(res.body.error.message).toContain('64');
    // Repeats count once: the same part 200 times is one part.
    const repeated = await api('/api/search', { collection: 'long', query: '+flow '.repeat(200) });
    expect(repeated.status).toBe(200);
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)('statement time limit (Postgres)', () => {
  let limited: TestServer;
  let limitedKey: string;
  beforeAll(async () => {
    limited = await startTestServer({
      // The SQL path's statements are what is limited (not memory.ts's, which this collection would use).
      env: { PLAN_FREE_RPM: '100000', SEARCH_STATEMENT_TIMEOUT_MS: '1', SEARCH_MEMORY_MAX_DOCUMENTS: '0' },
    });
    limitedKey = (await createAccountWithKey(limited)).key.key;
    const res = await fetch(`${limited.url}/api/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${limitedKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        collection: 'long',
        documents: Array.from({ length: 40 }, (_, i) => longDocument(i)),
      }),
    });
    expect(res.status).toBe(200);
  }, 120_000);
  afterAll(async () => {
    await limited?.close();
  });

  it('a search over its time limit is a 503 search_timeout naming the limit, not a 500', async () => {
    const res = await fetch(`${limited.url}/api/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${limitedKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ collection: 'long', query: 'data flow analysis of loops', limit: 100 }),
    });
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(res.status, JSON.stringify(body)).toBe(503);
    expect(body.error.code).toBe('search_timeout');
    expect(body.error.message).toContain('1 ms');
    expect(res.headers.get('x-should-retry')).toBe('false');
  });
});
