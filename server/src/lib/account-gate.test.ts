import { describe, expect, it } from 'vitest';
import { AccountGate } from './account-gate';

/** An operation that runs until released. */
function held() {
  let release = () => {};
  const done = new Promise<void>((r) => {
    release = r;
  });
  return { work: () => done, release };
}

const refuse = () => new Error('too many waiting');

describe('AccountGate', () => {
  it('holds one account to its share while another account still starts at once', async () => {
    const gate = new AccountGate({ total: 4, perAccount: 2, queuePerAccount: 8 });
    const a = [held(), held(), held()];
    const started: string[] = [];
    const runs = a.map((h, i) =>
      gate.run(
        'a',
        async () => {
          started.push(`a${i}`);
          await h.work();
        },
        refuse,
      ),
    );
    await Promise.resolve();
    expect(started).toEqual(['a0', 'a1']);
    expect(gate.runningFor('a')).toBe(2);
    const b = held();
    const runB = gate.run(
      'b',
      async () => {
        started.push('b0');
        await b.work();
      },
      refuse,
    );
    await Promise.resolve();
    expect(started).toEqual(['a0', 'a1', 'b0']);
    a[0]?.release();
    await runs[0];
    await new Promise((r) => setTimeout(r, 0));
    expect(started).toEqual(['a0', 'a1', 'b0', 'a2']);
    for (const h of a) h.release();
    b.release();
    await Promise.all([...runs, runB]);
    expect(gate.runningFor('a')).toBe(0);
  });

  it('refuses an account past its waiting bound, and serves waiting accounts in turn when slots free', async () => {
    const gate = new AccountGate({ total: 1, perAccount: 1, queuePerAccount: 2 });
    const first = held();
    const order: string[] = [];
    const p0 = gate.run('a', first.work, refuse);
    const waiting = [
      gate.run('a', async () => void order.push('a1'), refuse),
      gate.run('a', async () => void order.push('a2'), refuse),
      gate.run('b', async () => void order.push('b1'), refuse),
    ];
    await expect(gate.run('a', async () => undefined, refuse)).rejects.toThrow('too many waiting');
    first.release();
    await Promise.all([p0, ...waiting]);
    // b's first waits behind a's first waiting one only, not behind all of a's.
    expect(order).toEqual(['a1', 'b1', 'a2']);
  });

  it("refuses with a 429 naming the gate's operations and its code, retry after a second", async () => {
    const gate = new AccountGate(
      { total: 1, perAccount: 1, queuePerAccount: 1 },
      { what: 'searches', code: 'search_concurrency_exceeded' },
    );
    const first = held();
    const running = gate.run('a', first.work);
    const queued = gate.run('a', async () => 'queued');
    await expect(gate.run('a', async () => 'refused')).rejects.toMatchObject({
      kind: 'rate_limited',
      code: 'search_concurrency_exceeded',
      retryAfterMs: 1_000,
      message: expect.stringContaining('Too many searches at once: this account has 1 running'),
    });
    first.release();
    expect(await queued).toBe('queued');
    await running;
  });

  it('frees the slot when the operation fails', async () => {
    const gate = new AccountGate({ total: 1, perAccount: 1, queuePerAccount: 1 });
    await expect(
      gate.run(
        'a',
        async () => {
          throw new Error('boom');
        },
        refuse,
      ),
    ).rejects.toThrow('boom');
    await expect(gate.run('a', async () => 'ok', refuse)).resolves.toBe('ok');
  });
});
