/** Token allowance leases on the real server: live calls over HTTP, usage written by the flush timer. */
import { beforeAll, describe, expect, it } from 'vitest';
import { createAccount, createKey } from '../helpers/fixtures';
import { useLeaseSuite } from '../helpers/lease-suite';
import type { TestServer } from '../helpers/server';

const suite = useLeaseSuite();
const { period } = suite;
let server: TestServer;
beforeAll(() => {
  server = suite.server;
});

describe('leases on the real server', () => {
  it('live calls of a Pro key are admitted from a lease and their usage is written by the timer', async () => {
    const account = await createAccount(server, { plan: 'pro' });
    const { key } = await createKey(server, account.id, 'live');
    let total = 0;
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'tessera-fast-4k',
          max_tokens: 20,
          messages: [{ role: 'user', content: 'Tell me about rivers' }],
        }),
      });
      expect(res.status).toBe(200);
      total += ((await res.json()) as { usage: { total_tokens: number } }).usage.total_tokens;
      // The next response's headers already count this call, before anything is written.
    }
    const status = await server.services.allowance.status({
      keyId: 'key_x',
      accountId: account.id,
      mode: 'live',
      last4: 'abcd',
      plan: 'pro',
      limits: { requestsPerMinute: 1_000, monthlyTokens: 10_000_000 },
    });
    expect(status.used).toBe(total);
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline && (await period(account.id))?.used !== total) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect((await period(account.id))?.used).toBe(total);
  });
});
