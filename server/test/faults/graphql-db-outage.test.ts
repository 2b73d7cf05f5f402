import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usageEvents } from '../../src/db/schema';
import { usingPostgres } from '../helpers/database';
import { createAccountWithKey, createKey } from '../helpers/fixtures';
import { type ProxiedServer, startServerBehindDbProxy } from './proxied-server';

// GraphQL while Postgres is down: a query by a key the instance knows (cached) is a 503 SERVICE_UNAVAILABLE
// with retry-after, as on REST and tRPC, and is metered as that 503 (it was a 500, `{ __typename }`
// included). Needs a real Postgres to cut off.
const postgres = usingPostgres();
if (!postgres) console.warn('graphql-db-outage.test.ts skipped: set TEST_DATABASE_URL to run it');

let setup: ProxiedServer;

beforeAll(async () => {
  if (!postgres) return;
  setup = await startServerBehindDbProxy({ USAGE_FLUSH_INTERVAL_MS: '100' });
});
afterAll(async () => {
  await setup?.close();
});

function graphql(key: string, query: string): Promise<Response> {
  return fetch(`${setup.server.url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
}

describe.skipIf(!postgres)('GraphQL while Postgres is down', () => {
  it('answers 503 SERVICE_UNAVAILABLE with retry-after to a known key, and meters a 503', async () => {
    const { server, proxy } = setup;
    const { key, account } = await createAccountWithKey(server, { plan: 'pro' });
    // The key is verified (and cached) while Postgres is there.
    const warm = await graphql(key.key, '{ viewer { plan } }');
    expect(warm.status).toBe(200);

    proxy.cut();
    const ids: string[] = [];
    try {
      for (const query of ['{ __typename }', '{ viewer { plan } }', '{ apiKeys { id } }']) {
        const res = await graphql(key.key, query);
        ids.push(String(res.headers.get('x-request-id')));
        expect({ query, status: res.status }).toEqual({ query, status: 503 });
        expect(res.headers.get('retry-after')).toBe('1');
        const body = (await res.json()) as { errors: { message: string; extensions: { code: string } }[] };
        expect(body.errors[0]?.extensions.code).toBe('SERVICE_UNAVAILABLE');
        expect(JSON.stringify(body)).not.toMatch(/stack|ECONN|CONNECTION_/);
      }
    } finally {
      proxy.restore();
    }

    const deadline = Date.now() + 10_000;
    let statuses: number[] = [];
    while (Date.now() < deadline) {
      const rows = await setup.direct.db
        .select({ id: usageEvents.requestId, status: usageEvents.status })
        .from(usageEvents)
        .where(eq(usageEvents.accountId, account.id));
      statuses = rows.filter((r) => ids.includes(r.id)).map((r) => r.status);
      if (statuses.length === ids.length) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(statuses).toEqual([503, 503, 503]);
  });

  it('while Postgres is stalled, answers 503 within the database timeout, on GraphQL and REST', async () => {
    const { server, proxy } = setup;
    const { key, account } = await createAccountWithKey(server, { plan: 'pro' });
    const unseen = await createKey(server, account.id, 'test', 'never used before the stall');
    expect((await graphql(key.key, '{ viewer { plan } }')).status).toBe(200);

    proxy.stall();
    try {
      const timed = async (send: () => Promise<Response>) => {
        const started = performance.now();
        const res = await send();
        await res.arrayBuffer();
        return {
          status: res.status,
          retryAfter: res.headers.get('retry-after'),
          ms: performance.now() - started,
        };
      };
      const answers = await Promise.all([
        timed(() => graphql(key.key, '{ __typename }')),
        timed(() => graphql(key.key, '{ viewer { plan } }')),
        timed(() => fetch(`${server.url}/v1/models`, { headers: { authorization: `Bearer ${unseen.key}` } })),
      ]);
      for (const answer of answers) {
        expect(answer.status).toBe(503);
        expect(answer.retryAfter).toBe('1');
        // DATABASE_TIMEOUT_MS, 3,000 by default (the 10 s connect timeout before, and REST waited until
        // Postgres came back), and a margin for this shared machine.
        expect(answer.ms).toBeLessThan(4_500);
      }
    } finally {
      proxy.restore();
    }
    // Once Postgres answers again, so does the server.
    expect((await graphql(key.key, '{ viewer { plan } }')).status).toBe(200);
  }, 60_000);
});
