import { describe, expect, it } from 'vitest';
import { deploymentRollupDeltas } from './deployment-rollup';
import { bucketOf } from './histogram';
import type { UsageEvent } from './types';

function event(overrides: Partial<UsageEvent>): UsageEvent {
  return {
    occurredAt: Date.parse('2026-03-15T10:37:12.000Z'),
    requestId: 'req_1',
    accountId: 'acc_1',
    keyId: 'key_1',
    mode: 'live',
    method: 'POST',
    route: '/v1/chat/completions',
    status: 200,
    latencyMs: 120,
    model: 'gpt-4o',
    deployment: 'east',
    promptTokens: 10,
    completionTokens: 5,
    costMicros: 40,
    errorType: null,
    errorCode: null,
    errorMessage: null,
    ...overrides,
  };
}

describe('deploymentRollupDeltas', () => {
  it('folds model calls into one row per model, deployment and minute, hour and day', () => {
    const deltas = deploymentRollupDeltas([
      event({}),
      event({ latencyMs: 900, status: 502, promptTokens: 10, completionTokens: 0, costMicros: 20 }),
      event({ deployment: 'west', latencyMs: 60 }),
      event({ occurredAt: Date.parse('2026-03-15T10:38:01.000Z'), latencyMs: 80 }),
    ]);
    const minutes = deltas.filter((d) => d.granularity === 'minute');
    expect(minutes.map((d) => [d.deployment, d.bucketStart.toISOString(), d.requests])).toEqual([
      ['east', '2026-03-15T10:37:00.000Z', 2],
      ['west', '2026-03-15T10:37:00.000Z', 1],
      ['east', '2026-03-15T10:38:00.000Z', 1],
    ]);
    const eastHour = deltas.find((d) => d.granularity === 'hour' && d.deployment === 'east');
    expect(eastHour).toMatchObject({
      bucketStart: new Date('2026-03-15T10:00:00.000Z'),
      model: 'gpt-4o',
      requests: 3,
      errors: 1,
      latencySumMs: 1100,
      latencyMaxMs: 900,
      tokenRequests: 3,
      promptTokens: 30,
      completionTokens: 10,
      costMicros: 100,
    });
    expect(eastHour?.latencyHistogram[bucketOf(900)]).toBe(1);
    expect(eastHour?.latencyHistogram.reduce((a, b) => a + b, 0)).toBe(3);
    const eastDay = deltas.find((d) => d.granularity === 'day' && d.deployment === 'east');
    expect(eastDay?.bucketStart.toISOString()).toBe('2026-03-15T00:00:00.000Z');
    expect(eastDay?.requests).toBe(3);
  });

  it('leaves out requests without a model and keeps refusals before a deployment as ""', () => {
    const deltas = deploymentRollupDeltas([
      event({ model: null, deployment: null, method: 'GET', route: '/v1/models' }),
      event({ deployment: null, status: 429, promptTokens: 0, completionTokens: 0, costMicros: null }),
    ]);
    expect(deltas).toHaveLength(3);
    for (const d of deltas) {
      expect(d.route).toBe('/v1/chat/completions');
      expect(d.deployment).toBe('');
      expect(d.errors).toBe(1);
      expect(d.costMicros).toBe(0);
    }
  });

  it('keeps accounts, modes, keys and routes apart, in the primary key order', () => {
    const deltas = deploymentRollupDeltas([
      event({ accountId: 'acc_2' }),
      event({ mode: 'test', deployment: 'simulator' }),
      event({ keyId: 'key_2' }),
      event({ route: '/v1/responses' }),
    ]).filter((d) => d.granularity === 'minute');
    expect(deltas).toHaveLength(4);
    const keys = deltas.map((d) => [d.accountId, d.mode, d.keyId, d.route].join('/'));
    expect(keys).toEqual([...keys].sort());
  });
});
