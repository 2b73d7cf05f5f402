import { describe, expect, it } from 'vitest';
import { bucketOf, emptyHistogram, HISTOGRAM_SIZE, LATENCY_BOUNDS_MS, quantile } from './histogram';
import { GRANULARITY_MS, isErrorStatus, type RollupDelta, rollupDeltas, statusClassOf } from './rollup';
import type { UsageEvent } from './types';

function event(overrides: Partial<UsageEvent>): UsageEvent {
  return {
    occurredAt: Date.parse('2026-03-15T10:37:12.000Z'),
    requestId: 'req_1',
    accountId: 'acc_1',
    keyId: 'key_1',
    mode: 'test',
    method: 'GET',
    route: '/v1/models',
    status: 200,
    latencyMs: 12,
    model: null,
    deployment: null,
    promptTokens: null,
    completionTokens: null,
    costMicros: null,
    errorType: null,
    errorCode: null,
    errorMessage: null,
    ...overrides,
  };
}

describe('statusClassOf', () => {
  it('keeps 429 and aborted apart from the other classes', () => {
    expect([200, 204, 301, 400, 401, 404, 429, 499, 500, 504].map(statusClassOf)).toEqual([
      '2xx',
      '2xx',
      '3xx',
      '4xx',
      '4xx',
      '4xx',
      '429',
      'aborted',
      '5xx',
      '5xx',
    ]);
  });
});

describe('rollupDeltas', () => {
  it('folds a batch into one row per minute, hour and day and key, with sums and a histogram', () => {
    const deltas = rollupDeltas([
      event({
        latencyMs: 3,
        promptTokens: 10,
        completionTokens: 5,
        costMicros: 75,
        route: '/v1/chat/completions',
        method: 'POST',
      }),
      event({ latencyMs: 700, status: 500, route: '/v1/chat/completions', method: 'POST' }),
      event({ occurredAt: Date.parse('2026-03-15T10:38:00.000Z'), latencyMs: 40 }),
      event({ latencyMs: 200_000 }),
    ]);
    const minute = deltas.filter((d) => d.granularity === 'minute');
    const hour = deltas.filter((d) => d.granularity === 'hour');
    const day = deltas.filter((d) => d.granularity === 'day');
    // Minute: the two /v1/models events at 10:37 and 10:38 differ; chat 2xx and 5xx are separate classes.
    expect(minute).toHaveLength(4);
    expect(hour).toHaveLength(3);
    expect(day).toHaveLength(3);
    const models = hour.find((d) => d.route === '/v1/models');
    expect(models).toMatchObject({
      requests: 2,
      errors: 0,
      latencySumMs: 200_040,
      latencyMaxMs: 200_000,
      tokenRequests: 0,
    });
    expect(models?.bucketStart.toISOString()).toBe('2026-03-15T10:00:00.000Z');
    expect(models?.latencyHistogram[bucketOf(40)]).toBe(1);
    expect(models?.latencyHistogram.at(-1)).toBe(1);
    const chatOk = day.find((d) => d.statusClass === '2xx' && d.method === 'POST');
    expect(chatOk).toMatchObject({ tokenRequests: 1, promptTokens: 10, completionTokens: 5, costMicros: 75 });
    expect(chatOk?.bucketStart.toISOString()).toBe('2026-03-15T00:00:00.000Z');
    expect(day.find((d) => d.statusClass === '5xx')).toMatchObject({ requests: 1, errors: 1 });
  });

  it('counts the response cache’s hits, misses and savings in every granularity', () => {
    const chat = { route: '/v1/chat/completions', method: 'POST', model: 'm' };
    const deltas = rollupDeltas([
      event({ ...chat, cache: 'miss', promptTokens: 10, completionTokens: 5, costMicros: 75 }),
      event({ ...chat, cache: 'hit', promptTokens: 0, completionTokens: 0, costMicros: 0, savedMicros: 75 }),
      event({ ...chat, cache: 'hit', promptTokens: 0, completionTokens: 0, costMicros: 0, savedMicros: 75 }),
      event({ ...chat, promptTokens: 1, completionTokens: 1, costMicros: 3 }),
    ]);
    for (const granularity of ['minute', 'hour', 'day'] as const)
      expect(deltas.find((d) => d.granularity === granularity)).toMatchObject({
        requests: 4,
        cacheHits: 2,
        cacheMisses: 1,
        savedMicros: 150,
        costMicros: 78,
      });
  });

  it('orders rows by key, so that concurrent writers lock in the same order', () => {
    const a = rollupDeltas([
      event({ keyId: 'key_b' }),
      event({ keyId: 'key_a' }),
      event({ accountId: 'acc_0' }),
    ]);
    const b = rollupDeltas([
      event({ accountId: 'acc_0' }),
      event({ keyId: 'key_a' }),
      event({ keyId: 'key_b' }),
    ]);
    expect(a).toEqual(b);
    expect(a[0]?.accountId).toBe('acc_0');
  });
});

describe('bucketOf', () => {
  it('puts every latency in the bucket whose bounds hold it, exact bounds included', () => {
    for (const ms of [0, 0.01, 0.125, 0.2, 1, 2, 5, 40, 730, 1_000, 29_999, 131_072, 1e9]) {
      const b = bucketOf(ms);
      const upper = LATENCY_BOUNDS_MS[b] ?? Number.POSITIVE_INFINITY;
      const lower = b === 0 ? Number.NEGATIVE_INFINITY : (LATENCY_BOUNDS_MS[b - 1] ?? 0);
      expect(ms, String(ms)).toBeLessThanOrEqual(upper);
      expect(ms, String(ms)).toBeGreaterThan(lower);
    }
    expect(bucketOf(1e9)).toBe(HISTOGRAM_SIZE - 1);
  });
});

describe('quantile', () => {
  it('lands in the bucket holding the rank, never above the largest latency; null when empty', () => {
    const h = emptyHistogram();
    expect(quantile(h, 0.95)).toBeNull();
    const values = Array.from({ length: 1_000 }, (_, i) => 1 + i * 0.75);
    for (const v of values) h[bucketOf(v)] = (h[bucketOf(v)] ?? 0) + 1;
    for (const q of [0.5, 0.9, 0.95, 0.99]) {
      const exact = values[Math.ceil(q * values.length) - 1] ?? 0;
      expect(Math.abs((quantile(h, q) ?? 0) - exact) / exact).toBeLessThan(0.09);
    }
    expect(quantile(h, 1, 730)).toBe(730);
    expect(quantile(h, 0.999, values.at(-1))).toBeLessThanOrEqual(values.at(-1) ?? 0);
    const open = emptyHistogram();
    open[bucketOf(500_000)] = 3; // the open last bucket: its lower bound, or the largest latency when known
    expect(quantile(open, 0.5)).toBe(LATENCY_BOUNDS_MS.at(-1));
    expect(quantile(open, 0.5, 500_000)).toBe(500_000);
  });
});

/** The plain fold (three keys per event), kept as the reference the faster one must equal. */
function referenceDeltas(events: readonly UsageEvent[]): RollupDelta[] {
  const byKey = new Map<string, RollupDelta>();
  for (const e of events) {
    const statusClass = statusClassOf(e.status);
    for (const granularity of ['minute', 'hour', 'day'] as const) {
      const width = GRANULARITY_MS[granularity];
      const bucketMs = Math.floor(e.occurredAt / width) * width;
      const key = [e.accountId, granularity, bucketMs, e.mode, e.keyId, e.method, e.route, statusClass].join(
        '\u0000',
      );
      let d = byKey.get(key);
      if (!d) {
        d = {
          accountId: e.accountId,
          granularity,
          bucketStart: new Date(bucketMs),
          mode: e.mode,
          keyId: e.keyId,
          method: e.method,
          route: e.route,
          statusClass,
          requests: 0,
          errors: 0,
          latencySumMs: 0,
          latencyHistogram: emptyHistogram(),
          latencyMaxMs: 0,
          tokenRequests: 0,
          promptTokens: 0,
          completionTokens: 0,
          costMicros: 0,
          cacheHits: 0,
          cacheMisses: 0,
          savedMicros: 0,
        };
        byKey.set(key, d);
      }
      d.requests += 1;
      if (isErrorStatus(e.status)) d.errors += 1;
      d.latencySumMs += e.latencyMs;
      d.latencyMaxMs = Math.max(d.latencyMaxMs, e.latencyMs);
      const b = bucketOf(e.latencyMs);
      d.latencyHistogram[b] = (d.latencyHistogram[b] ?? 0) + 1;
      if (e.promptTokens !== null || e.completionTokens !== null) {
        d.tokenRequests += 1;
        d.promptTokens += e.promptTokens ?? 0;
        d.completionTokens += e.completionTokens ?? 0;
      }
      d.costMicros += e.costMicros ?? 0;
      if (e.cache === 'hit') {
        d.cacheHits += 1;
        d.savedMicros += e.savedMicros ?? 0;
      } else if (e.cache === 'miss') d.cacheMisses += 1;
    }
  }
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, d]) => d);
}

describe('rollupDeltas against the plain fold', () => {
  it('equals it row for row, in the same lock order, on random batches across minute, hour and day edges', () => {
    let seed = 11;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)] as T;
    const midnight = Date.parse('2026-03-15T23:58:30.000Z');
    for (let batch = 0; batch < 30; batch++) {
      const events = Array.from({ length: 1 + Math.floor(random() * 400) }, (_, i) =>
        event({
          requestId: `req_${i}`,
          occurredAt: midnight + Math.floor(random() * 4 * 60_000),
          accountId: pick(['acc_1', 'acc_2']),
          keyId: pick(['key_1', 'key_2', 'key_3']),
          mode: pick(['live', 'test'] as const),
          method: pick(['GET', 'POST']),
          route: pick(['/v1/models', '/v1/chat/completions']),
          status: pick([200, 201, 400, 429, 499, 500]),
          latencyMs: random() * 3_000,
          promptTokens: random() < 0.5 ? null : Math.floor(random() * 100),
          completionTokens: random() < 0.5 ? null : Math.floor(random() * 100),
          costMicros: random() < 0.5 ? null : Math.floor(random() * 5_000),
        }),
      );
      expect(rollupDeltas(events)).toEqual(referenceDeltas(events));
    }
  });
});
