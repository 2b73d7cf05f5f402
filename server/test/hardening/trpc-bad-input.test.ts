import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server';
import { TrpcTestClient } from '../helpers/trpc-client';

let server: TestServer;
let client: TrpcTestClient;
beforeAll(async () => {
  server = await startTestServer();
  client = new TrpcTestClient(server.url);
  await client.mutation('auth.signUp', {
    email: `fuzz-${Date.now()}@example.com`,
    password: 'a long enough password',
  });
});
afterAll(async () => {
  await server?.close();
});

const RUNS = Number(process.env.FUZZ_RUNS ?? 40);
const anyJson = fc.jsonValue({ maxDepth: 3 });

describe('bad input on tRPC procedures', () => {
  for (const procedure of [
    'auth.signUp',
    'auth.signIn',
    'keys.create',
    'keys.revoke',
    'keys.update',
    'keys.rotate',
    'teams.invite',
    'teams.changeRole',
    'teams.removeMember',
    'teams.revokeInvitation',
    'teams.accept',
    'teams.switch',
    'budgets.set',
    'webhooks.set',
  ]) {
    it(`${procedure}: random input is a 4xx (or a success), never a 5xx`, async () => {
      await fc.assert(
        fc.asyncProperty(anyJson, async (input) => {
          const result = await client.mutation(procedure, input);
          expect(result.status, JSON.stringify(input)).toBeLessThan(500);
          if (result.error) expect(JSON.stringify(result.error)).not.toMatch(/\bat .+\.(ts|js):\d+/);
        }),
        { numRuns: RUNS },
      );
    });
  }

  it('key settings near the valid shape (create and update): a 4xx naming a field, or a success, never a 5xx', async () => {
    const created = await client.mutation<{ id: string }>('keys.create', { name: 'fuzzed', kind: 'live' });
    const id = created.data?.id ?? '';
    const settings = fc.record(
      {
        name: fc.oneof(fc.string({ maxLength: 80 }), fc.integer()),
        kind: fc.constantFrom('live', 'test', 'prod'),
        scopes: fc.option(
          fc.array(fc.constantFrom('chat', 'models', 'search_read', 'admin', ''), { maxLength: 6 }),
        ),
        models: fc.option(
          fc.array(fc.constantFrom('tessera-fast-4k', 'gpt-4', '', 'x'.repeat(200)), { maxLength: 4 }),
        ),
        expiresAt: fc.option(
          fc.oneof(
            fc.integer({ min: -1e10, max: 1e10 }).map((d) => new Date(Date.now() + d * 1000).toISOString()),
            fc.string({ maxLength: 30 }),
          ),
        ),
        requestsPerMinute: fc.option(fc.oneof(fc.integer({ min: -5, max: 200 }), fc.double(), fc.string())),
        tokenBudget: fc.option(
          fc.record({
            tokens: fc.oneof(fc.integer({ min: -1, max: 200_000 }), fc.constant(1e15)),
            period: fc.constantFrom('day', 'week', 'month', 'year'),
          }),
        ),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(settings, fc.boolean(), async (input, update) => {
        const result = update
          ? await client.mutation('keys.update', { ...input, kind: undefined, id })
          : await client.mutation('keys.create', input);
        expect(result.status, JSON.stringify(input)).toBeLessThan(500);
        if (result.status === 400) expect(result.error?.message ?? '').not.toBe('');
      }),
      { numRuns: RUNS * 2 },
    );
  });

  it('spend budgets near the valid shape: a 4xx naming a field, or a success, never a 5xx', async () => {
    const created = await client.mutation<{ id: string }>('keys.create', { name: 'budgeted', kind: 'live' });
    const input = fc.record(
      {
        scope: fc.constantFrom('account', 'key', 'member', 'team'),
        subjectId: fc.oneof(fc.constant(created.data?.id ?? ''), fc.string({ maxLength: 80 }), fc.integer()),
        budget: fc.option(
          fc.record(
            {
              amountMicros: fc.oneof(fc.integer({ min: -1, max: 1e9 }), fc.double(), fc.constant(1e20)),
              period: fc.constantFrom('day', 'week', 'month', 'year'),
            },
            { requiredKeys: [] },
          ),
        ),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(input, async (value) => {
        const result = await client.mutation('budgets.set', value);
        expect(result.status, JSON.stringify(value)).toBeLessThan(500);
        if (result.status === 400) expect(result.error?.message ?? '').not.toBe('');
      }),
      { numRuns: RUNS * 2 },
    );
  });

  it('malformed bodies, unknown procedures and oversized input', async () => {
    const post = (path: string, body: string) =>
      fetch(`${server.url}/trpc/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-tessera-csrf': '1', cookie: client.cookie ?? '' },
        body,
      });
    expect((await post('auth.signIn', '{"email":')).status).toBe(400);
    expect((await post('nope.nothing', '{}')).status).toBe(404);
    expect((await post('keys.create', JSON.stringify({ name: 'x'.repeat(2_000_000) }))).status).toBe(413);
    const bad = await fetch(`${server.url}/trpc/keys.list?input=%7B%22a`, {
      headers: { cookie: client.cookie ?? '' },
    });
    expect(bad.status).toBeLessThan(500);
  });
});
