import type { Response } from 'express';
import type { Clock } from '../lib/clock';
import type { Principal } from '../principal';

/** What a model call consumed, as a route's outcome reports it (chat's and embeddings' `MeteredUsage`). */
export interface ConsumedUsage {
  model: string;
  promptTokens: number;
  completionTokens: number;
}

/** Why a request failed, for its usage record and access log: OpenAI's error `type`, `code` and message. */
export interface RecordedError {
  type: string;
  code: string | null;
  message: string;
}

/**
 * The usage record being filled while a request runs; metering (metering.ts) turns it into one usage event when
 * the request is over. Every field is set in the constructor, so that every record has one hidden class.
 */
export class UsageRecord {
  model: string | null = null;
  /** The provider that answered (or last failed) a model call, as `x-tessera-provider` says. */
  provider: string | null = null;
  promptTokens: number | null = null;
  completionTokens: number | null = null;
  /** The response cache's part in a chat call (modules/cache): `hit` or `miss`; null when it was off. */
  cache: 'hit' | 'miss' | null = null;
  /** A hit's saving: what the cached answer cost when the model made it, in micro-units. */
  savedMicros: number | null = null;
  errorType: string | null = null;
  errorCode: string | null = null;
  errorMessage: string | null = null;
  /**
   * The status the request is metered with when it is not the response's: a stream that failed after its 200
   * went out (the upstream cut it, the model timed out) is metered as the error its last event says.
   */
  status: number | null = null;

  consumed(usage: ConsumedUsage): void {
    this.model = usage.model;
    this.promptTokens = usage.promptTokens;
    this.completionTokens = usage.completionTokens;
  }

  /** Records why the request failed; `first` keeps an error already recorded (the first cause wins). */
  failed(error: RecordedError, options?: { first?: boolean }): void {
    if (options?.first && this.errorType !== null) return;
    this.errorType = error.type;
    this.errorCode = error.code;
    this.errorMessage = error.message;
  }
}

/**
 * One request's state, made once when it arrives (`requestContext`, the first middleware of every request) and
 * handed to the route's handler as an argument: who calls, the request id, the clock, and the usage record being
 * filled. Express passes only the request and the response from one middleware to the next, so the context
 * rides on `res.locals.context`, its one slot there; `contextOf(res)` reads it.
 */
export class RequestContext {
  /** The route as a template (`/v1/models/:id`), set when a route matched. */
  route: string | null = null;
  /** Who calls, once authenticated (a key, or the playground's session). */
  principal: Principal | undefined = undefined;
  /**
   * The SHA-256 of the presented key once it was read as a well-formed key, whether or not it was then accepted:
   * a refused key's request is attributed to its account by this hash (modules/usage, `recordUnresolved`), so
   * the key is read once, by authentication.
   */
  keyHash: string | null = null;
  readonly usage = new UsageRecord();
  /** While the route's handler runs, metering waits for it: an aborted stream's final token count comes last. */
  handlerRunning = false;
  /**
   * How the response ended, as metering (metering.ts) notes it: `performance.now()` and the clock's time (0 until
   * then), and whether it finished (false: the client left first, status 499). Kept here rather than in closures
   * made for every request.
   */
  endedAt = 0;
  endedWall = 0;
  finished = false;
  /** Whether the usage event was made: once, when both the response and the handler are over. */
  metered = false;
  meterTimer: NodeJS.Timeout | undefined = undefined;
  private onHandlerDone: ((res: Response) => void) | undefined = undefined;
  private handlerResponse: Response | undefined = undefined;

  constructor(
    readonly requestId: string,
    /** `performance.now()` when the request arrived: latency is measured from here. */
    readonly startedAt: number,
    readonly clock: Clock,
  ) {}

  /** Metering's hook for a request that ended while its handler still ran: `record(res)` once it returns. */
  whenHandlerDone(record: (res: Response) => void, res: Response): void {
    this.onHandlerDone = record;
    this.handlerResponse = res;
  }

  handlerEnded(): void {
    this.handlerRunning = false;
    const done = this.onHandlerDone;
    const res = this.handlerResponse;
    this.onHandlerDone = undefined;
    this.handlerResponse = undefined;
    if (done && res) done(res);
  }
}

/** A context whose caller is known: what an authenticated route's handler receives. */
export type AuthenticatedContext = RequestContext & { readonly principal: Principal };

export function isAuthenticated(context: RequestContext): context is AuthenticatedContext {
  return context.principal !== undefined;
}

/** The request's context (made by `requestContext` before anything else runs). */
export function contextOf(res: Response): RequestContext {
  return (res.locals as { context: RequestContext }).context;
}

/**
 * How a metered route's handler ended, which the route pipeline (rest/routes.ts) records into the usage record:
 * what its model call consumed, and, when it failed, the error to answer with. The answer itself (JSON or a
 * stream) the handler has sent. Chat's and embeddings' outcomes have this shape.
 */
export type RouteOutcome =
  | { ok: true; usage: ConsumedUsage }
  | { ok: false; error: unknown; usage: ConsumedUsage };

/**
 * A call refused after its model was known but before any model saw it (the allowance's 429, a budget's, its 503
 * in an outage): it consumed nothing, and is metered with its model and 0 tokens, so that usage adds up to what
 * the allowance counted.
 */
export function refusedBeforeModel(model: string, error: unknown): RouteOutcome {
  return { ok: false, error, usage: { model, promptTokens: 0, completionTokens: 0 } };
}
