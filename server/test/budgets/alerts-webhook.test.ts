/**
 * Budget alerts and their webhook through the real server: alerts at 50, 80 and 100 % raised once each per
 * period, recorded and readable through GraphQL and tRPC, POSTed signed (HMAC-SHA256 over timestamp and body) to
 * a real local receiver that fails before it succeeds, retried with backoff from the database, and kept in a
 * delivery log; a delivery survives its dispatcher being stopped and a new one started.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, webhookDeliveries, webhookEndpoints } from '../../src/db/schema';
import { newId } from '../../src/lib/ids';
import { SecretBox, verifySignature, WebhookDispatcher } from '../../src/modules/webhooks';
import { gql } from '../helpers/graphql';
import { startTestServer, type TestServer } from '../helpers/server';
import { signUpOwner } from '../helpers/teams';
import { chat, costOf, liveKey, pricedCatalogue, type Usage } from './helpers';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on loopback that answers `failures` requests with 500, then 200. */
async function startReceiver(failures: number) {
  const received: Received[] = [];
  let answered = 0;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString('utf8');
    });
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      answered += 1;
      res.writeHead(answered <= failures ? 500 : 200).end(answered <= failures ? 'not now' : 'ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

async function eventually<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({
    env: {
      MODELS_FILE: pricedCatalogue(),
      PLAN_FREE_RPM: '100000',
      WEBHOOK_POLL_MS: '50',
      WEBHOOK_RETRY_BASE_MS: '100',
      WEBHOOK_MAX_ATTEMPTS: '5',
      SECRETS_ENCRYPTION_KEY: 'a'.repeat(64),
    },
  });
});
afterAll(async () => {
  await server?.close();
});

const ALERTS = /* GraphQL */ `
  query {
    budgets { currency budgets { scope subjectId amountMicros period usedMicros reservedMicros } }
    budgetAlerts { scope subjectId thresholdPercent amountMicros usedMicros period }
    webhookDeliveries { eventType status attempts lastStatusCode lastError deliveredAt }
  }
`;

interface AlertsData {
  budgets: { currency: string; budgets: { scope: string; usedMicros: number }[] };
  budgetAlerts: { thresholdPercent: number; scope: string; usedMicros: number }[];
  webhookDeliveries: {
    status: string;
    attempts: number;
    lastStatusCode: number | null;
    lastError: string | null;
  }[];
}

describe('budget alerts', () => {
  it('raises 50, 80 and 100 % once each, and delivers each signed, retrying a failing receiver', async () => {
    const receiver = await startReceiver(2);
    try {
      const owner = await signUpOwner(server);
      const key = await liveKey(owner);
      const hook = await owner.client.mutation<{ url: string; secret: string; secretLast4: string }>(
        'webhooks.set',
        {
          url: receiver.url,
        },
      );
      expect(hook.status).toBe(200);
      const secret = hook.data?.secret ?? '';
      expect(secret).toMatch(/^whsec_[A-Za-z0-9]{32}$/);
      // Shown once: reading the webhook back gives only the last 4.
      const read = await owner.client.query<Record<string, unknown>>('webhooks.get');
      expect(read.data).toEqual({
        url: receiver.url,
        secretLast4: secret.slice(-4),
        updatedAt: expect.any(String),
      });
      expect(JSON.stringify(read.data)).not.toContain(secret);
      const [audited] = await server.services.ctx.db
        .select()
        .from(auditEvents)
        .where(and(eq(auditEvents.accountId, owner.accountId), eq(auditEvents.action, 'webhook.set')));
      expect(audited?.details).toEqual({ url: receiver.url });
      // Stored encrypted (SECRETS_ENCRYPTION_KEY is set): the database does not hold the secret as such.
      const [stored] = await server.services.ctx.db
        .select()
        .from(webhookEndpoints)
        .where(eq(webhookEndpoints.accountId, owner.accountId));
      expect(stored?.secret).toMatch(/^v1:/);
      expect(stored?.secret).not.toContain(secret.slice(6));

      // A call's worst case is about 900 micro-units (its prompt at 10, 40 tokens at 20): 1,820 takes two.
      await owner.client.mutation('budgets.set', {
        scope: 'key',
        subjectId: key.id,
        budget: { amountMicros: 1_820, period: 'day' },
      });
      const first = (await (await chat(server.url, key.key)).json()) as { usage: Usage };
      expect(costOf(first.usage)).toBeGreaterThan(0);
      // Then small calls until the budget refuses one: by then over 80 % is spent.
      while ((await chat(server.url, key.key, { max_tokens: 5 })).status === 200);

      const cookie = owner.client.cookie ?? '';
      const data = await eventually(
        async () => (await gql<AlertsData>(server, { cookie }, ALERTS)).data,
        (d) => (d?.webhookDeliveries ?? []).filter((x) => x.status === 'DELIVERED').length >= 2,
      );
      const thresholds = (data?.budgetAlerts ?? []).map((a) => a.thresholdPercent).sort((a, b) => a - b);
      // 50 % after the first call; 80 % and perhaps 100 % after the second (how much the last call fit).
      expect(thresholds.slice(0, 2)).toEqual([50, 80]);
      expect(new Set(thresholds).size).toBe(thresholds.length);
      expect(data?.budgets.currency).toBe('USD');

      // Every alert has one delivery; the receiver failed the first two requests, so the first alert's
      // delivery took retries, each signed again.
      const deliveries = data?.webhookDeliveries ?? [];
      expect(deliveries).toHaveLength(thresholds.length);
      await eventually(
        async () => (await gql<AlertsData>(server, { cookie }, ALERTS)).data?.webhookDeliveries ?? [],
        (ds) => ds.every((d) => d.status === 'DELIVERED'),
      );
      const log = (await gql<AlertsData>(server, { cookie }, ALERTS)).data?.webhookDeliveries ?? [];
      expect(log.every((d) => d.status === 'DELIVERED' && d.lastStatusCode === 200)).toBe(true);
      expect(log.reduce((n, d) => n + d.attempts, 0)).toBe(thresholds.length + 2);
      expect(receiver.received).toHaveLength(thresholds.length + 2);

      const now = Math.floor(Date.now() / 1000);
      for (const r of receiver.received) {
        const signature = String(r.headers['x-tessera-signature']);
        expect(signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
        expect(verifySignature(secret, r.body, signature, now)).toBe(true);
        // Any change to the body breaks it.
        expect(verifySignature(secret, `${r.body} `, signature, now)).toBe(false);
        expect(r.headers['x-tessera-event']).toBe('budget.threshold_reached');
      }
      const bodies = receiver.received.map(
        (r) => JSON.parse(r.body) as { id: string; data: Record<string, unknown> },
      );
      const fifty = bodies.find((b) => b.data.threshold_percent === 50);
      expect(fifty?.data).toMatchObject({
        scope: 'key',
        subject_id: key.id,
        amount_micros: 1_820,
        currency: 'USD',
        period: 'day',
      });
      expect(Number(fifty?.data.used_micros)).toBeGreaterThanOrEqual(910);
      // Retries resend the same event (receivers dedupe on its id).
      expect(new Set(bodies.map((b) => b.id)).size).toBe(thresholds.length);

      // The dashboard's tRPC reads the same log.
      const trpcLog = await owner.client.query<{ status: string }[]>('webhooks.deliveries');
      expect(trpcLog.data?.every((d) => d.status === 'delivered')).toBe(true);
    } finally {
      await receiver.close();
    }
  });

  it('alerts once per period even when calls keep coming; a failing endpoint is logged with its error', async () => {
    const owner = await signUpOwner(server);
    const key = await liveKey(owner);
    // Nothing listens there: every attempt fails with a connection error.
    await owner.client.mutation('webhooks.set', { url: 'http://127.0.0.1:9/none' });
    await owner.client.mutation('budgets.set', {
      scope: 'account',
      budget: { amountMicros: 100_000, period: 'month' },
    });
    for (let i = 0; i < 8; i++) expect((await chat(server.url, key.key)).status).toBe(200);
    const cookie = owner.client.cookie ?? '';
    // A call's spend (and any alert it raises) is settled before its response ends.
    const data = (await gql<AlertsData>(server, { cookie }, ALERTS)).data;
    // About 8,000 of 100,000 spent: no threshold reached, no alert.
    expect(data?.budgetAlerts).toEqual([]);
    expect(data?.webhookDeliveries).toEqual([]);

    await owner.client.mutation('budgets.set', {
      scope: 'account',
      budget: { amountMicros: 10_000, period: 'month' },
    });
    for (let i = 0; i < 3; i++) await chat(server.url, key.key);
    const after = await eventually(
      async () => (await gql<AlertsData>(server, { cookie }, ALERTS)).data,
      (d) => (d?.webhookDeliveries ?? []).some((x) => x.attempts >= 2),
    );
    const thresholds = (after?.budgetAlerts ?? []).map((a) => a.thresholdPercent).sort((a, b) => a - b);
    expect(thresholds.slice(0, 2)).toEqual([50, 80]);
    expect(new Set(thresholds).size).toBe(thresholds.length);
    const failing = after?.webhookDeliveries[0];
    expect(failing).toMatchObject({ status: 'PENDING', lastStatusCode: null });
    expect(failing?.lastError).toMatch(/fetch failed|ECONNREFUSED/);
  });

  it('a delivery queued while no dispatcher runs is sent by the next one (nothing lost over a restart)', async () => {
    const receiver = await startReceiver(0);
    try {
      await server.services.webhooks.stop();
      const owner = await signUpOwner(server);
      const key = await liveKey(owner);
      const hook = await owner.client.mutation<{ secret: string }>('webhooks.set', { url: receiver.url });
      await owner.client.mutation('budgets.set', {
        scope: 'key',
        subjectId: key.id,
        budget: { amountMicros: 1_500, period: 'day' },
      });
      expect((await chat(server.url, key.key)).status).toBe(200);
      await new Promise((r) => setTimeout(r, 300));
      expect(receiver.received).toHaveLength(0);
      // Another process's dispatcher (same database, its own secret box from the same key).
      const next = new WebhookDispatcher(
        server.services.ctx,
        new SecretBox(Buffer.from('a'.repeat(64), 'hex')),
        {
          pollMs: 50,
          retryBaseMs: 100,
          maxAttempts: 3,
          timeoutMs: 2_000,
          allowPrivate: true,
        },
      );
      next.start();
      await eventually(
        async () => receiver.received.length,
        (n) => n >= 1,
      );
      await next.stop();
      const r = receiver.received[0];
      expect(
        verifySignature(
          hook.data?.secret ?? '',
          r?.body ?? '',
          String(r?.headers['x-tessera-signature']),
          Math.floor(Date.now() / 1000),
        ),
      ).toBe(true);
    } finally {
      server.services.webhooks.start();
      await receiver.close();
    }
  });

  it('refuses a webhook URL that is not http(s), naming the field', async () => {
    const owner = await signUpOwner(server);
    const res = await owner.client.mutation('webhooks.set', { url: 'ftp://example.com/hook' });
    expect(res.status).toBe(400);
    expect(res.error?.data.fieldErrors?.url?.[0]).toBe('The webhook URL must be an http:// or https:// URL');
    const none = await owner.client.mutation('webhooks.set', { url: 'not a url' });
    expect(none.status).toBe(400);
  });

  it('where private addresses are not allowed (production), refuses a literal one and never connects to one', async () => {
    const strict = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'false' } });
    const receiver = await startReceiver(0);
    try {
      const owner = await signUpOwner(strict);
      for (const url of [
        receiver.url,
        'http://169.254.169.254/latest/meta-data/',
        'http://[::1]:8080/hook',
      ]) {
        const res = await owner.client.mutation('webhooks.set', { url });
        expect(res.status, url).toBe(400);
        expect(res.error?.data.fieldErrors?.url?.[0], url).toContain('not a public address');
      }
      // A name is checked where the connection is made, after it resolves: localhost is refused there.
      const port = new URL(receiver.url).port;
      const named = await owner.client.mutation('webhooks.set', { url: `http://localhost:${port}/hooks` });
      expect(named.status).toBe(200);
      const dispatcher = new WebhookDispatcher(strict.services.ctx, strict.services.webhookSecrets, {
        pollMs: 60_000,
        retryBaseMs: 100,
        maxAttempts: 1,
        timeoutMs: 2_000,
        allowPrivate: false,
      });
      const db = strict.services.ctx.db;
      const [endpoint] = await db
        .select()
        .from(webhookEndpoints)
        .where(eq(webhookEndpoints.accountId, owner.accountId));
      expect(endpoint).toBeDefined();
      await db.insert(webhookDeliveries).values({
        id: newId('whd'),
        accountId: owner.accountId,
        eventType: 'budget.threshold_reached',
        payload: '{}',
        url: endpoint?.url ?? '',
      });
      dispatcher.start();
      const rows = await eventually(
        () => db.select().from(webhookDeliveries).where(eq(webhookDeliveries.accountId, owner.accountId)),
        (r) => r[0]?.status === 'failed',
      );
      await dispatcher.stop();
      expect(rows[0]?.status).toBe('failed');
      expect(rows[0]?.lastError).toContain('not a public address');
      expect(receiver.received).toHaveLength(0);
    } finally {
      await receiver.close();
      await strict.close();
    }
  });
});
