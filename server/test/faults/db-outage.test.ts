import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usageEvents } from '../../src/db/schema';
import { usingPostgres } from '../helpers/database';
import { createAccountWithKey, createKey } from '../helpers/fixtures';
import { type ProxiedServer, startServerBehindDbProxy } from './proxied-server';

// Postgres unreachable for ~3 s under load: requests by a known (cached) key keep being answered, the usage
// events are buffered, and all of them are written once Postgres is back. Needs a real Postgres to cut off.
const postgres = usingPostgres();
if (!postgres)
  console.warn('db-outage.test.ts skipped: set TEST_DATABASE_URL to run it against a real Postgres');

let setup: ProxiedServer;

beforeAll(async () => {
  if (!postgres) return;
  setup = await startServerBehindDbProxy({
    USAGE_FLUSH_INTERVAL_MS: '100',
    PLAN_PRO_RPM: '100000',
    SIMULATOR_TOKEN_DELAY_MS: '2',
  });
});
afterAll(async () => {
  await setup?.close();
});

/** Waits (up to 10 s) for `expected` usage rows of the account; returns what is there. */
async function settledRows(accountId: string, expected: number) {
  const deadline = Date.now() + 10_000;
  while ((await rowsOf(accountId)) < expected && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 200));
  return setup.direct.db.select().from(usageEvents).where(eq(usageEvents.accountId, accountId));
}

async function rowsOf(accountId: string): Promise<number> {
  const [row] = await setup.direct.db
    .select({ n: count() })
    .from(usageEvents)
    .where(eq(usageEvents.accountId, accountId));
  return row?.n ?? 0;
}

describe.skipIf(!postgres)('Postgres unavailable for a while under load', () => {
  it('answers every request by a known key, then writes every usage event when Postgres returns', async () => {
    const { server, proxy } = setup;
    const { key, account } = await createAccountWithKey(server, { plan: 'pro', kind: 'live' });
    const fresh = await createKey(server, account.id, 'test', 'never used before the outage');
    const get = async () => {
      const res = await fetch(`${server.url}/v1/models`, { headers: { authorization: `Bearer ${key.key}` } });
      await res.arrayBuffer();
      return { status: res.status, id: res.headers.get('x-request-id') };
    };
    // Warm the key cache (and everything else a request reads) while Postgres is there.
    const warm = [await get(), await get()];
    expect(warm.map((r) => r.status)).toEqual([200, 200]);

    proxy.cut();
    const during: { status: number; id: string | null }[] = [];
    const until = Date.now() + 3_000;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (Date.now() < until) {
          during.push(await get());
          await new Promise((r) => setTimeout(r, 25));
        }
      }),
    );
    // A key this instance never saw cannot be checked: 503 to retry, on REST and GraphQL alike.
    const unseen = await fetch(`${server.url}/v1/models`, {
      headers: { authorization: `Bearer ${fresh.key}` },
    });
    expect(unseen.status).toBe(503);
    expect(unseen.headers.get('retry-after')).toBe('1');
    expect(((await unseen.json()) as { error: { code: string } }).error.code).toBe('service_unavailable');
    const unseenGraphql = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fresh.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ viewer { plan } }' }),
    });
    expect(unseenGraphql.status).toBe(503);
    expect(await unseenGraphql.json()).toMatchObject({
      errors: [{ extensions: { code: 'SERVICE_UNAVAILABLE' } }],
    });
    // The server did try to reach Postgres (flushes, at least) and was turned away.
    expect(proxy.refused).toBeGreaterThan(0);
    expect(during.length).toBeGreaterThan(20);
    expect(during.filter((r) => r.status !== 200)).toEqual([]);
    expect(server.services.usage.depth).toBeGreaterThan(0);

    proxy.restore();
    // Refusals are metered too: the two 503s belong to the account (attributed by the key's hash on write).
    const refusals = [unseen, unseenGraphql].map((r) => ({ id: r.headers.get('x-request-id') }));
    const expected = warm.length + during.length + refusals.length;
    const deadline = Date.now() + 10_000;
    while ((await rowsOf(account.id)) < expected && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 200));
    expect(await rowsOf(account.id)).toBe(expected);
    const ids = await setup.direct.db
      .select({ id: usageEvents.requestId })
      .from(usageEvents)
      .where(eq(usageEvents.accountId, account.id));
    expect(new Set(ids.map((r) => r.id))).toEqual(
      new Set([...warm, ...during, ...refusals].map((r) => r.id)),
    );
  });

  it('serves chat completions by a known test key, streamed and not, and meters every one when it returns', async () => {
    const { server, proxy } = setup;
    const { key, account } = await createAccountWithKey(server, { plan: 'pro', kind: 'test' });
    const chat = async (stream: boolean) => {
      const res = await fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'tessera-fast-4k',
          messages: [{ role: 'user', content: 'Describe a database outage in a few words' }],
          max_tokens: 12,
          stream,
        }),
      });
      const text = await res.text();
      return { status: res.status, id: res.headers.get('x-request-id'), stream, text };
    };
    const answered = (r: { stream: boolean; text: string }) =>
      r.stream
        ? r.text.trimEnd().endsWith('data: [DONE]') && r.text.includes('"content":')
        : (JSON.parse(r.text) as { choices: { message: { content: string } }[] }).choices[0]?.message
            .content !== '';
    // Warm the key cache (and the account's allowance view the headers show) while Postgres is there.
    const warm = [await chat(false), await chat(true)];
    expect(warm.map((r) => r.status)).toEqual([200, 200]);

    proxy.cut();
    const refusedBefore = proxy.refused;
    const during: Awaited<ReturnType<typeof chat>>[] = [];
    const until = Date.now() + 3_000;
    await Promise.all(
      Array.from({ length: 4 }, async (_, worker) => {
        for (let i = 0; Date.now() < until; i += 1) during.push(await chat((worker + i) % 2 === 0));
      }),
    );
    expect(proxy.refused).toBeGreaterThan(refusedBefore);
    expect(during.length).toBeGreaterThan(20);
    expect(during.filter((r) => r.stream).length).toBeGreaterThan(5);
    expect(during.filter((r) => r.status !== 200).map((r) => `${r.status} ${r.text.slice(0, 200)}`)).toEqual(
      [],
    );
    expect(during.filter((r) => !answered(r))).toEqual([]);
    expect(server.services.usage.depth).toBeGreaterThan(0);

    proxy.restore();
    const calls = [...warm, ...during];
    const rows = await settledRows(account.id, calls.length);
    expect(rows.length).toBe(calls.length);
    expect(new Set(rows.map((r) => r.requestId))).toEqual(new Set(calls.map((r) => r.id)));
    for (const row of rows) {
      expect(row).toMatchObject({ route: '/v1/chat/completions', status: 200, model: 'tessera-fast-4k' });
      expect(row.promptTokens).toBeGreaterThan(0);
      expect(row.completionTokens).toBeGreaterThan(0);
    }
  });
});
