/**
 * The response cache's key setting where keys' other settings are edited: the dashboard's tRPC (create, edit,
 * clear; bad values are field errors), GraphQL's `apiKeys`, the audit log; and the edit reaches the request path
 * at once (the next chat call is cached, or no longer).
 */
import type { ApiKeyView, CreatedApiKey } from '@tessera/shared';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents } from '../../src/db/schema';
import type { RotatedKey } from '../../src/modules/keys';
import { gql } from '../helpers/graphql';
import { startTestServer, type TestServer } from '../helpers/server';
import { signUpOwner } from '../helpers/teams';
import type { TrpcTestClient } from '../helpers/trpc-client';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ env: { SIMULATOR_TOKEN_DELAY_MS: '0', PLAN_FREE_RPM: '100000' } });
});
afterAll(async () => {
  await server?.close();
});

async function dashboard(): Promise<TrpcTestClient> {
  return (await signUpOwner(server, 'cache')).client;
}

async function cacheHeader(key: string): Promise<string | null> {
  const res = await fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'tessera-fast-4k', messages: [{ role: 'user', content: 'Cache me' }] }),
  });
  expect(res.status).toBe(200);
  await res.arrayBuffer();
  return res.headers.get('x-tessera-cache');
}

describe('the key’s cacheTtlSeconds', () => {
  it('is set, read, changed and cleared like the key’s other settings, and applies at once', async () => {
    const web = await dashboard();
    const created = await web.mutation<CreatedApiKey>('keys.create', {
      name: 'cached',
      cacheTtlSeconds: 600,
    });
    const key = created.data;
    if (!key) throw new Error(`keys.create failed: ${JSON.stringify(created.error)}`);
    expect(key.cacheTtlSeconds).toBe(600);
    expect(await cacheHeader(key.key)).toBe('miss');
    expect(await cacheHeader(key.key)).toBe('hit');

    const listed = await gql<{ apiKeys: { name: string; cacheTtlSeconds: number | null }[] }>(
      server,
      { key: key.key },
      '{ apiKeys { name cacheTtlSeconds } }',
    );
    expect(listed.data?.apiKeys).toEqual([{ name: 'cached', cacheTtlSeconds: 600 }]);

    const cleared = await web.mutation<ApiKeyView>('keys.update', { id: key.id, cacheTtlSeconds: null });
    expect(cleared.data?.cacheTtlSeconds).toBeNull();
    expect(await cacheHeader(key.key)).toBeNull();
    const renamed = await web.mutation<ApiKeyView>('keys.update', { id: key.id, name: 'renamed' });
    expect(renamed.data?.cacheTtlSeconds).toBeNull();
    const enabled = await web.mutation<ApiKeyView>('keys.update', { id: key.id, cacheTtlSeconds: 60 });
    expect(enabled.data?.cacheTtlSeconds).toBe(60);
    // Still stored from before: the answer is younger than the new TTL.
    expect(await cacheHeader(key.key)).toBe('hit');

    const changes = await server.services.ctx.db
      .select({ action: auditEvents.action, details: auditEvents.details })
      .from(auditEvents)
      .where(and(eq(auditEvents.targetId, key.id), eq(auditEvents.action, 'key.updated')));
    expect(changes.map((c) => (c.details as { changes: Record<string, unknown> }).changes)).toContainEqual({
      cacheTtlSeconds: { before: 600, after: null },
    });
  });

  it('is kept by a rotation: the replacement key answers from the same cache', async () => {
    const web = await dashboard();
    const old = (await web.mutation<CreatedApiKey>('keys.create', { name: 'rotated', cacheTtlSeconds: 120 }))
      .data;
    if (!old) throw new Error('no key');
    expect(await cacheHeader(old.key)).toBe('miss');
    const rotated = await web.mutation<RotatedKey>('keys.rotate', { id: old.id, gracePeriodSeconds: 60 });
    expect(rotated.data?.key.cacheTtlSeconds).toBe(120);
    expect(await cacheHeader(rotated.data?.key.key ?? '')).toBe('hit');
  });

  it('refuses a TTL that is not a whole number of seconds from 1 to 30 days, as a field error', async () => {
    const web = await dashboard();
    for (const bad of [0, -5, 1.5, 2_592_001]) {
      const res = await web.mutation('keys.create', { name: 'bad', cacheTtlSeconds: bad });
      expect(res.error?.data.code).toBe('BAD_REQUEST');
      expect(Object.keys(res.error?.data.fieldErrors ?? {})).toEqual(['cacheTtlSeconds']);
    }
    const ok = await web.mutation<CreatedApiKey>('keys.create', {
      name: 'month',
      cacheTtlSeconds: 2_592_000,
    });
    expect(ok.data?.cacheTtlSeconds).toBe(2_592_000);
  });
});
