/**
 * What metering adds to a request on the hot path: the `meter` middleware (two listeners) and, when the
 * response ends, building the event, the Prometheus observations and the push into the buffer. No I/O: the
 * store is never reached (the recorder is not started and its batch size is never hit).
 * Usage: cd server && npx tsx ../bench/analytics/hot-path.ts [iterations=1000000]
 */
import { EventEmitter } from 'node:events';
import { meter } from '../../server/src/http/metering';
import { RequestContext } from '../../server/src/http/request-context';
import { createLogger } from '../../server/src/logger';
import { Metrics } from '../../server/src/metrics/registry';
import { UsageRecorder, type UsageStore } from '../../server/src/modules/usage';

// Express's types as the middleware takes them (express is the server package's dependency, not the root's).
type Request = Parameters<ReturnType<typeof meter>>[0];
type Response = Parameters<ReturnType<typeof meter>>[1];

const iterations = Number(process.argv[2] ?? 1_000_000);
const store: UsageStore = {
  write: async () => {},
  resolveKeys: async () => new Map(),
  prune: async () => 0,
};
const metrics = new Metrics();
const usage = new UsageRecorder(
  store,
  { clock: { now: () => Date.now() }, logger: createLogger('silent'), metrics },
  {
    maxBuffered: 10_000,
    batchSize: 5_000,
    flushIntervalMs: 1_000,
    eventRetentionDays: 30,
    minuteRollupRetentionDays: 3,
  },
);
const clock = { now: () => Date.now() };
const middleware = meter({ usage, metrics });
const principal = {
  keyId: 'key_1',
  accountId: 'acc_1',
  mode: 'test' as const,
  last4: 'abcd',
  plan: 'free' as const,
  limits: { requestsPerMinute: 100, monthlyTokens: 1 },
};
const req = { method: 'GET', path: '/v1/models', get: () => undefined } as unknown as Request;

function fakeResponse(): Response {
  const res = new EventEmitter() as unknown as Response & { writableFinished: boolean; statusCode: number };
  const context = new RequestContext('req_x', performance.now(), clock);
  context.route = '/v1/models';
  context.principal = principal;
  res.locals = { context };
  res.req = req;
  res.statusCode = 200;
  res.writableFinished = true;
  return res;
}

/** ns per request, timing only the synchronous request work; the buffer is drained between chunks as the writer would. */
async function run(n: number, withMeter: boolean): Promise<number> {
  let spent = 0n;
  for (let done = 0; done < n; done += 1_000) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < 1_000; i++) {
      const res = fakeResponse();
      if (withMeter) middleware(req, res, () => {});
      res.emit('finish');
      res.emit('close');
    }
    spent += process.hrtime.bigint() - t;
    await usage.flush();
  }
  return Number(spent) / n;
}

await run(50_000, true);
await run(50_000, false);
const base = await run(iterations, false);
const metered = await run(iterations, true);
console.log(`iterations: ${iterations}; buffered events: ${usage.depth}`);
console.log(`fake request without metering: ${base.toFixed(0)} ns`);
console.log(`fake request with metering:    ${metered.toFixed(0)} ns`);
console.log(`metering cost per request:     ${(metered - base).toFixed(0)} ns`);
