import { createHash } from 'node:crypto';
import type { Ctx } from '../../context';
import { apiKeys } from '../../db/schema';
import { newId } from '../../lib/ids';
import { generateKey } from '../keys';
import type { PriceTable } from '../models';
import type { UsageEvent, UsageRecorder } from '../usage';

/**
 * Two weeks of made-up traffic for the demo account of an embedded install, so that a newcomer sees every card,
 * chart and table (and "change vs previous period") at once. It goes through the usage recorder like a real
 * call's metering, under a sample key that is revoked from birth: it never authenticates, and its usage is what
 * `removeSampleData` deletes.
 */
export const SAMPLE_DAYS = 14;

interface RouteShape {
  method: string;
  route: string;
  share: number;
  /** Median latency in ms; the spread is log-normal around it. */
  latencyMs: number;
  tokens: boolean;
}

/** The model the sample's chat calls use: the default catalogue's small one. */
const SAMPLE_MODEL = 'tessera-fast-4k';

const ROUTES: readonly RouteShape[] = [
  { method: 'POST', route: '/v1/chat/completions', share: 0.62, latencyMs: 650, tokens: true },
  { method: 'GET', route: '/v1/models', share: 0.1, latencyMs: 6, tokens: false },
  { method: 'POST', route: '/api/code/analyze', share: 0.12, latencyMs: 90, tokens: false },
  { method: 'POST', route: '/api/search', share: 0.16, latencyMs: 18, tokens: false },
];

const FAILURES = [
  {
    share: 0.02,
    status: 400,
    type: 'invalid_request_error',
    code: 'invalid_value',
    message: '`temperature` must be between 0 and 2.',
  },
  {
    share: 0.012,
    status: 404,
    type: 'invalid_request_error',
    code: 'model_not_found',
    message: 'The model `gpt-5-turbo` does not exist.',
  },
  {
    share: 0.015,
    status: 429,
    type: 'requests',
    code: 'rate_limit_exceeded',
    message: 'Rate limit reached for the free plan: 100 requests per minute.',
  },
  {
    share: 0.004,
    status: 500,
    type: 'server_error',
    code: 'model_timeout',
    message: 'The model did not answer within 30 seconds.',
  },
] as const;

/** A small deterministic generator (mulberry32), so that every demo install gets the same shape of traffic. */
function generator(seed: string): () => number {
  let state = createHash('sha256').update(seed).digest().readUInt32LE(0);
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The item whose share of [0, 1) holds `draw`, shares taken in order; none past the last share. */
function byShare<T extends { share: number }>(items: readonly T[], draw: number): T | undefined {
  let left = draw;
  for (const item of items) {
    left -= item.share;
    if (left < 0) return item;
  }
  return undefined;
}

/** Requests an hour: a working day's curve, quieter at weekends, and growing over the two weeks. */
function hourlyRate(at: Date, dayIndex: number): number {
  const hour = at.getUTCHours();
  const daytime = Math.exp(-((hour - 14) ** 2) / 18);
  const weekend = at.getUTCDay() === 0 || at.getUTCDay() === 6 ? 0.45 : 1;
  return (3 + 30 * daytime) * weekend * (0.7 + (0.6 * dayIndex) / SAMPLE_DAYS);
}

/** The sample events, oldest first, for an account's sample key; `now` ends the two weeks. */
export function sampleEvents(
  accountId: string,
  keyId: string,
  now: number,
  prices?: PriceTable,
): UsageEvent[] {
  const random = generator(`tessera-sample\u0000${accountId}`);
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const events: UsageEvent[] = [];
  const hour = 3_600_000;
  const start = Math.floor(now / hour) * hour - SAMPLE_DAYS * 24 * hour;
  for (let t = start; t < now; t += hour) {
    const day = Math.floor((t - start) / (24 * hour));
    const count = Math.round(hourlyRate(new Date(t), day) * (0.8 + 0.4 * random()));
    for (let i = 0; i < count; i++) {
      const occurredAt = Math.min(now - 1, t + Math.floor(random() * hour));
      const shape = byShare(ROUTES, random()) ?? (ROUTES[0] as RouteShape);
      const failure = byShare(FAILURES, random());
      const latencyMs = Math.max(1, shape.latencyMs * Math.exp(0.45 * normal())) * (failure ? 0.2 : 1);
      const tokens = shape.tokens && (!failure || failure.status === 500);
      const promptTokens = tokens ? 40 + Math.floor(random() * 700) : null;
      const completionTokens = tokens ? (failure ? 0 : 20 + Math.floor(random() * 380)) : null;
      events.push({
        occurredAt,
        requestId: `req_sample_${events.length.toString(36)}`,
        accountId,
        keyId,
        mode: 'test',
        method: shape.method,
        route: shape.route,
        status: failure?.status ?? 200,
        latencyMs: Math.round(latencyMs * 10) / 10,
        model: shape.tokens ? SAMPLE_MODEL : null,
        deployment: shape.tokens ? 'simulator' : null,
        promptTokens,
        completionTokens,
        // Priced as the catalogue prices the model, as metering would.
        costMicros:
          promptTokens === null
            ? null
            : (prices?.costMicros(SAMPLE_MODEL, promptTokens, completionTokens ?? 0, occurredAt) ?? null),
        errorType: failure?.type ?? null,
        errorCode: failure?.code ?? null,
        errorMessage: failure?.message ?? null,
      });
    }
  }
  return events.sort((a, b) => a.occurredAt - b.occurredAt);
}

/** Creates the sample key (revoked at once) and meters two weeks of sample traffic through the recorder. */
export async function seedSampleTraffic({
  ctx,
  usage,
  prices,
  accountId,
}: {
  ctx: Pick<Ctx, 'db' | 'clock'>;
  usage: UsageRecorder;
  /** The catalogue's prices, so that the sample's spend is what its calls would have cost. */
  prices?: PriceTable;
  accountId: string;
}): Promise<number> {
  const now = ctx.clock.now();
  const generated = generateKey('test');
  const keyId = newId('key');
  await ctx.db.insert(apiKeys).values({
    id: keyId,
    accountId,
    name: 'Sample traffic (demo data)',
    kind: 'test',
    keyHash: generated.hash,
    last4: generated.last4,
    revokedAt: new Date(now),
    sample: true,
  });
  const events = sampleEvents(accountId, keyId, now, prices);
  for (const event of events) usage.record(event);
  // A write under way when these were queued may not hold them: flush until they are all written.
  for (let i = 0; i < 100 && usage.depth > 0; i++) await usage.flush();
  return events.length;
}
