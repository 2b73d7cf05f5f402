import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usageEvents } from '../../src/db/schema';
import { PgUsageStore, type UsageEvent } from '../../src/modules/usage';
import { createAccountWithKey } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

describe('the usage store', () => {
  it('stores every field of an event as it was recorded, nulls as nulls, the time to the millisecond', async () => {
    const { account, key } = await createAccountWithKey(server, { kind: 'live' });
    const store = new PgUsageStore(server.services.ctx.db);
    const at = Date.UTC(2026, 10, 24, 7, 30, 15, 123) + 0.789;
    const full: UsageEvent = {
      occurredAt: at,
      requestId: 'req_full\u0000x',
      accountId: account.id,
      keyId: key.id,
      mode: 'live',
      method: 'POST',
      route: '/v1/chat/completions',
      status: 429,
      latencyMs: 12.375,
      model: 'tessera-fast-4k',
      deployment: 'openai',
      promptTokens: 17,
      completionTokens: 0,
      costMicros: null,
      errorType: 'rate_limit_error',
      errorCode: 'rate_limit_exceeded',
      errorMessage: 'Said "hi" \\ then \u0000 and ünïcödé 🙂',
    };
    const bare: UsageEvent = {
      ...full,
      occurredAt: at + 1_000,
      requestId: 'req_bare',
      method: 'GET',
      route: '/v1/models',
      status: 200,
      latencyMs: 0.5,
      model: null,
      deployment: null,
      promptTokens: null,
      completionTokens: null,
      errorType: null,
      errorCode: null,
      errorMessage: null,
    };
    await store.write([full, bare]);
    // A retry of a write that may have committed stores nothing twice (matched on the truncated time).
    await store.write([full, bare], () => true);

    const rows = await server.services.ctx.db
      .select()
      .from(usageEvents)
      .where(eq(usageEvents.accountId, account.id));
    rows.sort((a, b) => a.occurredAt.getTime() - b.occurredAt.getTime());
    expect(rows).toHaveLength(2);
    // Each row is the event as recorded, but for the NULs and the time's fraction of a millisecond.
    expect(rows[0]).toMatchObject({
      ...full,
      occurredAt: new Date(Date.UTC(2026, 10, 24, 7, 30, 15, 123)),
      requestId: 'req_fullx',
      errorMessage: 'Said "hi" \\ then  and ünïcödé 🙂',
    });
    expect(rows[1]).toMatchObject({ ...bare, occurredAt: new Date(Date.UTC(2026, 10, 24, 7, 30, 16, 123)) });
  });
});
