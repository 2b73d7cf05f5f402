import type { Request, RequestHandler, Response } from 'express';
import type { Clock } from '../../lib/clock';
import type { Metrics } from '../../metrics/registry';
import { hashKey, parseKey } from '../../modules/keys';
import { ABORTED_STATUS, type UsageEvent, type UsageRecorder } from '../../modules/usage';
import { locals } from './locals';

const HANDLER_WAIT_MS = 120_000;

export interface MeteringDeps {
  usage: UsageRecorder;
  metrics: Metrics;
  clock: Clock;
  /**
   * What to do with a request that presented no key: count it as unattributed (REST), or leave it out of
   * usage (GraphQL, where the dashboard's session calls are not API usage).
   */
  anonymous?: 'unattributed' | 'ignore';
}

/**
 * Meters a request once it is over: placed before authentication so that refusals are counted too. Runs on
 * 'finish' (response sent) or 'close' (client went away first: recorded as 499). Synchronous and in memory:
 * the request never waits on a database write.
 */
export function meter(deps: MeteringDeps): RequestHandler {
  return (req, res, next) => {
    const ending = new RequestEnding(deps, req, res);
    // Both may fire; the first decides (the ending ignores the second).
    res.on('finish', ending.done);
    res.on('close', ending.done);
    next();
  };
}

/**
 * When and how one request ended, recorded once. A class with bound methods rather than closures: the server
 * runs under tsx, whose transform renames every closure assigned to a variable each time one is made.
 */
class RequestEnding {
  private recorded = false;
  private endedAt = 0;
  private endedWall = 0;
  // Whether the response ended before the connection closed: judged once, when the first of the two fires.
  private finished = false;
  private timer: NodeJS.Timeout | undefined;
  readonly done = this.end.bind(this);
  private readonly record = this.write.bind(this);

  constructor(
    private readonly deps: MeteringDeps,
    private readonly req: Request,
    private readonly res: Response,
  ) {}

  private end(): void {
    if (this.endedAt !== 0) return;
    this.endedAt = performance.now();
    this.endedWall = this.deps.clock.now();
    this.finished = this.res.writableFinished;
    const l = locals(this.res);
    if (!l.handlerRunning) {
      this.write();
      return;
    }
    // The client went away while the handler still works (a stream being cut): its final usage comes
    // when it returns. A handler that never returns is recorded anyway after HANDLER_WAIT_MS.
    this.timer = setTimeout(this.record, HANDLER_WAIT_MS);
    this.timer.unref();
    // Not left pending: a timer would hold the request and response for minutes.
    l.onHandlerDone = this.record;
  }

  private write(): void {
    if (this.recorded) return;
    this.recorded = true;
    if (this.timer) clearTimeout(this.timer);
    recordRequest(this.req, this.res, this.deps, {
      at: this.endedAt,
      wall: this.endedWall,
      finished: this.finished,
    });
  }
}

function recordRequest(
  req: Request,
  res: Response,
  deps: MeteringDeps,
  ended: { at: number; wall: number; finished: boolean },
): void {
  const l = locals(res);
  const status = ended.finished ? res.statusCode : ABORTED_STATUS;
  const latencyMs = Math.max(0, ended.at - l.startedAt);
  const route = l.route ?? req.path;
  deps.metrics.observeRequest(req.method, route, status, latencyMs);
  const principal = l.principal;
  // One object of one shape per request: it is what the buffer keeps.
  const event: UsageEvent = {
    occurredAt: ended.wall - latencyMs,
    requestId: l.requestId,
    accountId: principal?.accountId ?? '',
    keyId: principal?.keyId ?? '',
    mode: principal?.mode ?? 'test',
    method: req.method,
    route,
    status,
    latencyMs: Math.round(latencyMs * 1000) / 1000,
    model: l.model ?? null,
    promptTokens: l.promptTokens ?? null,
    completionTokens: l.completionTokens ?? null,
    errorType: l.errorType ?? null,
    errorCode: l.errorCode ?? null,
    errorMessage: l.errorMessage ?? (status === ABORTED_STATUS ? 'The client closed the connection.' : null),
  };
  if (principal) {
    deps.usage.record(event);
    return;
  }
  // A well-formed key that was refused (revoked, or unknown): the writer attributes it if the key exists.
  const presented = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '')?.[1];
  if (presented && parseKey(presented)) {
    deps.usage.recordUnresolved({ ...event, keyHash: hashKey(presented) });
    return;
  }
  if (deps.anonymous !== 'ignore' || req.get('authorization') !== undefined) deps.metrics.unattributed(1);
}
