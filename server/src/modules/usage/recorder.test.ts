import { describe, expect, it } from 'vitest';
import { systemClock } from '../../lib/clock';
import { createLogger } from '../../logger';
import { UsageRecorder } from './recorder';
import type { UsageEvent, UsageStore } from './types';

function event(n: number): UsageEvent {
  return {
    occurredAt: Date.now(),
    requestId: `req_${n}`,
    accountId: 'acct_1',
    keyId: 'key_1',
    mode: 'live',
    method: 'POST',
    route: '/v1/chat/completions',
    status: 200,
    latencyMs: 1,
    model: null,
    deployment: null,
    promptTokens: null,
    completionTokens: null,
    costMicros: null,
    errorType: null,
    errorCode: null,
    errorMessage: null,
  };
}

/** A store whose every write takes a few milliseconds, during which `duringWrite` runs (traffic arriving). */
function slowStore(duringWrite: () => void) {
  const writes: string[][] = [];
  const store: UsageStore = {
    async write(events) {
      writes.push(events.map((e) => e.requestId));
      duringWrite();
      await new Promise((r) => setTimeout(r, 5));
    },
    resolveKeys: async () => new Map(),
    prune: async () => 0,
  };
  return { store, writes };
}

const metrics = { written: () => {}, dropped: () => {}, unattributed: () => {} };
const options = {
  maxBuffered: 10_000,
  batchSize: 4,
  flushIntervalMs: 60_000,
  eventRetentionDays: 30,
  minuteRollupRetentionDays: 3,
};

describe('UsageRecorder write cycles', () => {
  it('writes what was queued when the cycle began, in batches, and leaves later events to the next cycle', async () => {
    let next = 0;
    let recorder: UsageRecorder | undefined;
    // Every write sees three new requests arrive: a cycle that chased them would never end on its own.
    const { store, writes } = slowStore(() => {
      for (let i = 0; i < 3; i++) recorder?.record(event(next++));
    });
    recorder = new UsageRecorder(
      store,
      { clock: systemClock, logger: createLogger('silent'), metrics },
      options,
    );
    for (; next < 10; ) recorder.record(event(next++));
    await recorder.flush();
    // 10 queued: batches of 4, 4 and 2; the 9 recorded meanwhile wait.
    expect(writes.map((w) => w.length)).toEqual([4, 4, 2]);
    expect(writes.flat()).toEqual(Array.from({ length: 10 }, (_, i) => `req_${i}`));
    expect(recorder.depth).toBe(9);
    await recorder.flush();
    expect(writes.slice(3).flat()).toEqual(Array.from({ length: 9 }, (_, i) => `req_${10 + i}`));
  });

  it('stop() writes everything, including what arrives while it writes', async () => {
    let next = 0;
    let recorder: UsageRecorder | undefined;
    const { store, writes } = slowStore(() => {
      if (next < 20) recorder?.record(event(next++));
    });
    recorder = new UsageRecorder(
      store,
      { clock: systemClock, logger: createLogger('silent'), metrics },
      options,
    );
    for (; next < 6; ) recorder.record(event(next++));
    await recorder.stop(5_000);
    expect(recorder.depth).toBe(0);
    expect(writes.flat()).toEqual(Array.from({ length: 20 }, (_, i) => `req_${i}`));
  });
});
