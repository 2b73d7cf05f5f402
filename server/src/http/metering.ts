import type { Request, RequestHandler, Response } from 'express';
import type { Metrics } from '../metrics/registry';
import type { PriceTable } from '../modules/models';
import { ABORTED_STATUS, type UsageEvent, type UsageRecorder } from '../modules/usage';
import type { Tracing } from '../telemetry/tracing';
import { contextOf, type RequestContext } from './request-context';

const HANDLER_WAIT_MS = 120_000;

export interface MeteringDeps {
  usage: UsageRecorder;
  metrics: Metrics;
  /**
   * What to do with a request that presented no key: count it as unattributed (REST), or leave it out of
   * usage (GraphQL, where the dashboard's session calls are not API usage).
   */
  anonymous?: 'unattributed' | 'ignore';
  /** OpenTelemetry export: a span from each recorded request, when configured. */
  tracing?: Tracing;
  /** Model prices: each request that used a priced model gets its cost. */
  prices?: PriceTable;
}

/**
 * Meters a request once it is over, from its context's usage record: placed before authentication so that
 * refusals are counted too. Runs on 'finish' (response sent) or 'close' (client went away first: recorded as
 * 499). Synchronous and in memory: the request never waits on a database write.
 */
export function meter(deps: MeteringDeps): RequestHandler {
  return (req, res, next) => {
    const context = contextOf(res);
    let recorded = false;
    let endedAt = 0;
    let endedWall = 0;
    // Whether the response ended before the connection closed: judged once, when the first of the two fires.
    let finished = false;
    let timer: NodeJS.Timeout | undefined;
    const record = () => {
      if (recorded) return;
      recorded = true;
      if (timer) clearTimeout(timer);
      recordRequest(req, res, context, deps, { at: endedAt, wall: endedWall, finished });
    };
    const done = () => {
      if (endedAt !== 0) return;
      endedAt = performance.now();
      endedWall = context.clock.now();
      finished = res.writableFinished;
      if (!context.handlerRunning) {
        record();
        return;
      }
      // The client went away while the handler still works (a stream being cut): its final usage comes
      // when it returns. A handler that never returns is recorded anyway after HANDLER_WAIT_MS.
      timer = setTimeout(record, HANDLER_WAIT_MS);
      timer.unref();
      // Not left pending: a timer would hold the request and response for minutes.
      context.whenHandlerDone(record);
    };
    // Both may fire; the first decides (the second is ignored).
    res.on('finish', done);
    res.on('close', done);
    next();
  };
}

function recordRequest(
  req: Request,
  res: Response,
  context: RequestContext,
  deps: MeteringDeps,
  ended: { at: number; wall: number; finished: boolean },
): void {
  const status = ended.finished ? res.statusCode : ABORTED_STATUS;
  const latencyMs = Math.max(0, ended.at - context.startedAt);
  const route = context.route ?? req.path;
  deps.metrics.observeRequest(req.method, route, status, latencyMs);
  const { principal, usage } = context;
  const occurredAt = ended.wall - latencyMs;
  // One object of one shape per request: it is what the buffer keeps.
  const event: UsageEvent = {
    occurredAt,
    requestId: context.requestId,
    accountId: principal?.accountId ?? '',
    keyId: principal?.keyId ?? '',
    mode: principal?.mode ?? 'test',
    method: req.method,
    route,
    status,
    latencyMs: Math.round(latencyMs * 1000) / 1000,
    model: usage.model,
    deployment: usage.provider,
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    // A cache hit cost nothing (no model call); what it saved is recorded beside it.
    costMicros:
      usage.cache === 'hit'
        ? 0
        : usage.model !== null && deps.prices
          ? deps.prices.costMicros(
              usage.model,
              usage.promptTokens ?? 0,
              usage.completionTokens ?? 0,
              occurredAt,
            )
          : null,
    cache: usage.cache,
    savedMicros: usage.savedMicros,
    errorType: usage.errorType,
    errorCode: usage.errorCode,
    errorMessage:
      usage.errorMessage ?? (status === ABORTED_STATUS ? 'The client closed the connection.' : null),
  };
  deps.tracing?.requestEnded({ headers: req.headers, event, provider: usage.provider ?? undefined });
  if (principal) {
    deps.usage.record(event);
    return;
  }
  // A well-formed key that was refused (revoked, or unknown): the writer attributes it if the key exists.
  if (context.keyHash !== null) {
    deps.usage.recordUnresolved({ ...event, keyHash: context.keyHash });
    return;
  }
  if (deps.anonymous !== 'ignore' || req.get('authorization') !== undefined) deps.metrics.unattributed(1);
}
