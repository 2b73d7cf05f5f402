import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountWithKey } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * Issue 27: one account cannot hold every database connection. Searches and indexing batches run at most
 * SEARCH_MAX_CONCURRENT at once per instance and SEARCH_MAX_CONCURRENT_PER_ACCOUNT per account; more of one
 * account's wait in turn, and past SEARCH_QUEUE_PER_ACCOUNT waiting they are refused with 429. Another account's
 * search meanwhile starts at once. The flood is held in the server's own gate (deterministic: no timing).
 */
let server: TestServer;
let flooder: { key: string; accountId: string };
let other: string;

async function post(path: string, body: unknown, key: string) {
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: assertions walk arbitrary JSON
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
}

beforeAll(async () => {
  server = await startTestServer({
    env: {
      SEARCH_MAX_CONCURRENT: '3',
      SEARCH_MAX_CONCURRENT_PER_ACCOUNT: '2',
      SEARCH_QUEUE_PER_ACCOUNT: '1',
    },
  });
  const a = await createAccountWithKey(server, { plan: 'pro' });
  flooder = { key: a.key.key, accountId: a.account.id };
  other = (await createAccountWithKey(server, { plan: 'pro' })).key.key;
  for (const key of [flooder.key, other]) {
    const indexed = await post(
      '/api/documents',
      { documents: [{ id: 'd1', title: 'Data flow', text: 'flow' }] },
      key,
    );
    expect(indexed.status).toBe(200);
  }
});
afterAll(() => server?.close());

describe('a share of the search connections per account', () => {
  it("holds a flooding account to its share and its queue, while another account's search starts at once", async () => {
    const gate = server.services.searchGate;
    let release = () => {};
    const hold = new Promise<void>((r) => {
      release = r;
    });
    const refuse = () => new Error('refused');
    // The flooding account's share (2) is taken and one more of its operations waits: its queue (1) is full.
    const held = [0, 1, 2].map(() => gate.run(flooder.accountId, () => hold, refuse));
    expect(gate.runningFor(flooder.accountId)).toBe(2);

    const refused = await post('/api/search', { query: 'flow' }, flooder.key);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({
      type: 'requests',
      code: 'search_concurrency_exceeded',
    });
    expect(refused.headers.get('retry-after')).toBe('1');
    const refusedIndexing = await post(
      '/api/documents',
      { documents: [{ id: 'd2', title: 'x' }] },
      flooder.key,
    );
    expect(refusedIndexing.status).toBe(429);

    // The other account is under its share and a slot (of 3) is free: it is served now, not after the flood.
    const served = await post('/api/search', { query: 'flow' }, other);
    expect(served.status).toBe(200);
    expect(served.body.data.map((h: { id: string }) => h.id)).toEqual(['d1']);

    release();
    await Promise.all(held);
    expect(gate.runningFor(flooder.accountId)).toBe(0);
    const after = await post('/api/search', { query: 'flow' }, flooder.key);
    expect(after.status).toBe(200);
  });
});
