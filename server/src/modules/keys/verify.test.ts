import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountWithKey } from '../../../test/helpers/fixtures';
import { startTestServer, type TestServer } from '../../../test/helpers/server';
import { apiKeys } from '../../db/schema';
import { setPlan } from '../accounts';
import { presentedKey } from './presented';
import { revokeKey } from './revoke';
import { ApiKeyVerifier } from './verify';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

describe('ApiKeyVerifier', () => {
  it('verifies a key and then serves it from memory without reading the database', async () => {
    const { account, key } = await createAccountWithKey(server, { kind: 'live' });
    const verifier = new ApiKeyVerifier(server.services.ctx);
    const principal = await verifier.verify(presentedKey(`Bearer ${key.key}`));
    expect(principal).toMatchObject({ accountId: account.id, keyId: key.id, mode: 'live', plan: 'free' });
    // Remove the row behind the verifier's back: a cached key must not need it.
    await server.services.ctx.db.delete(apiKeys).where(eq(apiKeys.id, key.id));
    expect((await verifier.verify(presentedKey(`Bearer ${key.key}`))).keyId).toBe(key.id);
  });

  it('stops a key revoked by another instance at the next sync', async () => {
    const { account, key } = await createAccountWithKey(server);
    const here = new ApiKeyVerifier(server.services.ctx);
    await here.verify(presentedKey(`Bearer ${key.key}`));
    await here.sync();
    // Revoked "elsewhere": no onRevoked callback reaches this verifier.
    await revokeKey({ ctx: server.services.ctx, accountId: account.id, keyId: key.id });
    await here.sync();
    await expect(here.verify(presentedKey(`Bearer ${key.key}`))).rejects.toMatchObject({
      code: 'invalid_api_key',
    });
  });

  it('picks up a revocation within one second when running', async () => {
    const { account, key } = await createAccountWithKey(server);
    const here = new ApiKeyVerifier(server.services.ctx, { syncIntervalMs: 200 });
    await here.verify(presentedKey(`Bearer ${key.key}`));
    here.start();
    try {
      await new Promise((r) => setTimeout(r, 300));
      await revokeKey({ ctx: server.services.ctx, accountId: account.id, keyId: key.id });
      const revokedAt = Date.now();
      let refusedAfter = Number.POSITIVE_INFINITY;
      while (Date.now() - revokedAt < 2_000) {
        try {
          await here.verify(presentedKey(`Bearer ${key.key}`));
        } catch {
          refusedAfter = Date.now() - revokedAt;
          break;
        }
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(refusedAfter).toBeLessThan(1_000);
    } finally {
      here.stop();
    }
  });

  it('applies a plan change at the next sync', async () => {
    const { account, key } = await createAccountWithKey(server);
    const here = new ApiKeyVerifier(server.services.ctx);
    expect((await here.verify(presentedKey(`Bearer ${key.key}`))).limits.requestsPerMinute).toBe(100);
    await here.sync();
    await setPlan({
      ctx: server.services.ctx,
      accountId: account.id,
      input: { plan: 'enterprise', customRequestsPerMinute: 5_000 },
    });
    await here.sync();
    const after = await here.verify(presentedKey(`Bearer ${key.key}`));
    expect(after.plan).toBe('enterprise');
    expect(after.limits.requestsPerMinute).toBe(5_000);
  });

  it('updates the cached keys of a changed account in place, without reading the key again', async () => {
    const { account, key } = await createAccountWithKey(server);
    const here = new ApiKeyVerifier(server.services.ctx);
    await here.verify(presentedKey(`Bearer ${key.key}`));
    await here.sync();
    // Gone from the database: only a cache that kept the key can still answer for it.
    await server.services.ctx.db.delete(apiKeys).where(eq(apiKeys.id, key.id));
    await setPlan({ ctx: server.services.ctx, accountId: account.id, input: { plan: 'pro' } });
    for (let poll = 0; poll < 3; poll++) await here.sync();
    expect(await here.verify(presentedKey(`Bearer ${key.key}`))).toMatchObject({
      keyId: key.id,
      plan: 'pro',
    });
  });

  it('with the database unreachable: serves an expired entry, and refuses an unseen key with 503', async () => {
    const { key } = await createAccountWithKey(server);
    const other = await createAccountWithKey(server);
    const ctx = { ...server.services.ctx };
    const here = new ApiKeyVerifier(ctx, { ttlMs: 1 });
    await here.verify(presentedKey(`Bearer ${key.key}`));
    await new Promise((r) => setTimeout(r, 5));
    ctx.db = new Proxy(server.services.ctx.db, {
      get: () => () => {
        throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
      },
    });
    expect((await here.verify(presentedKey(`Bearer ${key.key}`))).keyId).toBe(key.id);
    await expect(here.verify(presentedKey(`Bearer ${other.key.key}`))).rejects.toMatchObject({
      kind: 'unavailable',
      code: 'service_unavailable',
      retryable: true,
      retryAfterMs: 1_000,
    });
  });

  it('refuses missing, mis-schemed, malformed and unknown keys with specific codes', async () => {
    // The header is read (and a well-formed key hashed) once, before the verifier looks the hash up.
    expect(() => presentedKey(undefined)).toThrow(
      expect.objectContaining({ kind: 'authentication', code: 'missing_api_key' }),
    );
    expect(() => presentedKey('Token abc')).toThrow(expect.objectContaining({ code: 'invalid_api_key' }));
    expect(() => presentedKey('Bearer sk_live_nope')).toThrow(
      expect.objectContaining({ code: 'invalid_api_key' }),
    );
    const wellFormed = presentedKey(`Bearer sk_test_${'q'.repeat(32)}`);
    expect(wellFormed.hash).toMatch(/^[0-9a-f]{64}$/);
    const v = new ApiKeyVerifier(server.services.ctx);
    await expect(v.verify(wellFormed)).rejects.toMatchObject({
      code: 'invalid_api_key',
    });
  });
});
