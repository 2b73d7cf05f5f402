import type { Usage } from '@tessera/shared';
import { ServiceError } from '../../errors';
import { CallAbortController } from '../../lib/call-abort';
import type {
  ChatProvider,
  ProviderCall,
  ProviderChunk,
  ProviderCompletion,
  RelayedEvent,
  RelayedResponse,
  ResponsesCall,
  ResponsesProvider,
} from '../providers';
import { isRetryable } from '../providers';
import type { DeploymentHealth, Transition } from './health';

/**
 * Told when a deployment's breaker opens or closes, or its upstream asks it to rest (a 429's `retry-after`): the
 * router logs it and, with Redis, shares it with the other instances (sync.ts).
 */
export type TransitionListener = (
  deployment: Deployment,
  transition: NonNullable<Transition> | 'rested',
) => void;

/**
 * Whether a failure on one deployment should move the call on to the next: what a retry could fix (5xx, lost
 * connections, 429, a stall), and an upstream refusing Tessera's own credentials or model name (401/403/404:
 * this deployment's configuration, which another deployment may not share). A request the upstream found
 * invalid (400) would be refused by every deployment alike.
 */
export function failsOver(err: unknown): boolean {
  return isRetryable(err) || (err instanceof ServiceError && err.code === 'upstream_rejected');
}

/**
 * One deployment of a model: its upstream's provider, seen through its health. Each attempt is counted (its
 * latency, its failure, an upstream's 429 and `retry-after`), and a stream is accepted only with its first
 * chunk in hand, so that a deployment that accepts a call and then fails or stalls before its first chunk is a
 * failure the call can still move on from: nothing has reached the client yet.
 */
export class Deployment implements ChatProvider, ResponsesProvider {
  /** Smooth weighted round-robin's running score (router.ts). */
  current = 0;
  /** This deployment itself when its upstream speaks the Responses API (`responses_api: true`), else undefined. */
  readonly responses: ResponsesProvider | undefined;
  private readonly relay: ResponsesProvider | undefined;

  constructor(
    readonly name: string,
    readonly upstreamModel: string,
    readonly weight: number,
    readonly health: DeploymentHealth,
    private readonly provider: ChatProvider,
    /** 0: no time limit of its own (the model's timeout applies). */
    private readonly attemptTimeoutMs: number,
    private readonly onTransition: TransitionListener,
    /** The catalogue's `responses_api: true`: `POST /v1/responses` is relayed to this upstream's own. */
    speaksResponses = false,
  ) {
    this.relay = speaksResponses ? provider.responses : undefined;
    this.responses = this.relay ? this : undefined;
  }

  complete(call: ProviderCall): Promise<ProviderCompletion> {
    return this.whole(call, () => this.provider.complete(call), chatUsageTokens);
  }

  stream(call: ProviderCall): Promise<AsyncIterable<ProviderChunk>> {
    return this.streamed(call, () => this.provider.stream(call), chunkUsageTokens);
  }

  respond(call: ResponsesCall): Promise<RelayedResponse> {
    const relay = this.relayOrThrow();
    return this.whole(call, () => relay.respond(call), eventUsageTokens);
  }

  /**
   * As `stream`: accepted with its first event in hand. A stream whose first event is already its failure
   * (`error`, `response.failed`) has sent nothing to the client either, so the call moves on from it.
   */
  respondStream(call: ResponsesCall): Promise<AsyncIterable<RelayedEvent>> {
    const relay = this.relayOrThrow();
    return this.streamed(
      call,
      () => relay.respondStream(call),
      eventUsageTokens,
      (first) => {
        if (first.type !== 'error' && first.type !== 'response.failed') return;
        throw new ServiceError(
          'upstream',
          `The upstream deployment '${this.name}' failed the response before its first output.`,
          { code: 'upstream_error', retryable: true },
        );
      },
    );
  }

  private relayOrThrow(): ResponsesProvider {
    if (!this.relay) throw new Error(`deployment '${this.name}' does not speak the Responses API`);
    return this.relay;
  }

  /** One whole answer: the attempt counted in the deployment's health, its tokens settled to the usage. */
  private async whole<T>(
    call: AttemptCall,
    run: () => Promise<T>,
    usageTokens: (answer: T) => number | undefined,
  ): Promise<T> {
    const started = performance.now();
    const tokens = call.promptTokens + call.maxTokens;
    this.claim(started, tokens);
    call.upstreamModel = this.upstreamModel;
    const attempt = this.attemptOf(call);
    try {
      const answer = await run();
      attempt?.clear();
      const now = performance.now();
      this.report(this.health.succeeded(now, now - started));
      const used = usageTokens(answer);
      if (used !== undefined) this.health.settleTokens(started, tokens, used);
      return answer;
    } catch (err) {
      throw this.failed(err, call, attempt);
    }
  }

  /** A stream, accepted once its first item is in hand (and `check` found nothing wrong with it). */
  private async streamed<T>(
    call: AttemptCall,
    run: () => Promise<AsyncIterable<T>>,
    usageTokens: (item: T) => number | undefined,
    check?: (first: T) => void,
  ): Promise<AsyncIterable<T>> {
    const started = performance.now();
    const tokens = call.promptTokens + call.maxTokens;
    this.claim(started, tokens);
    call.upstreamModel = this.upstreamModel;
    const attempt = this.attemptOf(call);
    let items: AsyncIterator<T>;
    let first: IteratorResult<T>;
    try {
      items = (await run())[Symbol.asyncIterator]();
      first = await items.next();
      if (check && !first.done) check(first.value);
      attempt?.clear();
    } catch (err) {
      throw this.failed(err, call, attempt);
    }
    const now = performance.now();
    this.report(this.health.succeeded(now, now - started));
    return new DeploymentStream(this, first, items, call, started, tokens, usageTokens);
  }

  /**
   * Starts an attempt. The call's order was made when it began: a deployment further down may have opened its
   * breaker or been told to wait meanwhile (other calls failing on it), and is then passed over rather than
   * called (an open breaker's call would also become its probe before the cooldown is over).
   */
  private claim(now: number, tokens: number): void {
    if (!this.health.available(now, tokens)) {
      throw new ServiceError('unavailable', `The upstream deployment '${this.name}' is resting.`, {
        code: 'deployment_resting',
        retryable: true,
        retryAfterMs: Math.max(1_000, Math.ceil(this.health.availableAt(now) - now)),
      });
    }
    this.health.begin(now, tokens);
  }

  /** A failure after the stream's first chunk: the call ends with it, and the deployment's health notes it. */
  midStreamFailure(err: unknown, call: AttemptCall): void {
    if (call.signal.aborted ? timedOut(call.signal) : failsOver(err))
      this.report(this.health.failedCall(performance.now()));
  }

  settle(used: number | undefined, started: number, tokens: number): void {
    if (used !== undefined) this.health.settleTokens(started, tokens, used);
  }

  /**
   * With an attempt timeout: the call gets a signal of its own, aborted by the call's (client gone, model
   * timeout) or by this attempt's time running out. A timer a routed attempt, only when the model has one.
   */
  private attemptOf(call: AttemptCall): AttemptTimer | undefined {
    if (this.attemptTimeoutMs <= 0) return undefined;
    const timer = new AttemptTimer(call.signal, this.attemptTimeoutMs);
    call.signal = timer.signal;
    return timer;
  }

  /** Notes what the failure says of the deployment and returns the error the call should see. */
  private failed(err: unknown, call: AttemptCall, attempt: AttemptTimer | undefined): unknown {
    attempt?.clear();
    const now = performance.now();
    const parent = attempt ? attempt.parent : call.signal;
    if (parent.aborted) {
      // The model timeout is this deployment's silence; the client leaving or a stopping server says nothing.
      if (timedOut(parent)) this.report(this.health.failedCall(now));
      else this.health.neutral();
      return err;
    }
    if (attempt?.expired) {
      this.report(this.health.failedCall(now));
      return new ServiceError(
        'upstream',
        `The upstream deployment '${this.name}' did not answer within the attempt timeout of ${this.attemptTimeoutMs} ms.`,
        { code: 'upstream_timeout', retryable: true },
      );
    }
    if (err instanceof ServiceError && err.code === 'upstream_overloaded') {
      this.health.rateLimited(now, err.retryAfterMs ?? 1_000);
      this.onTransition(this, 'rested');
    } else if (failsOver(err)) {
      this.report(this.health.failedCall(now));
    } else {
      this.health.neutral();
    }
    return err;
  }

  private report(transition: Transition): void {
    if (transition) this.onTransition(this, transition);
  }
}

/** Whether the call was ended by the model timeout (chat/deadline.ts's `model_timeout`), not by the client. */
function timedOut(signal: AbortSignal): boolean {
  const reason: unknown = signal.reason;
  return reason instanceof ServiceError && reason.code === 'model_timeout';
}

/** What an attempt changes and reads of a call, chat's or the Responses relay's. */
type AttemptCall = Pick<ProviderCall, 'upstreamModel' | 'promptTokens' | 'maxTokens' | 'signal'>;

function tokensOf(usage: Usage | null | undefined): number | undefined {
  return usage ? usage.prompt_tokens + usage.completion_tokens : undefined;
}
const chatUsageTokens = (answer: ProviderCompletion) => tokensOf(answer.usage);
const chunkUsageTokens = (chunk: ProviderChunk) => tokensOf(chunk.usage);
const eventUsageTokens = (item: RelayedResponse | RelayedEvent) => tokensOf(item.usage);

/**
 * A deployment's stream as the caller reads it: the first item (already in hand), then the upstream's own items
 * passed through as they come, each seen for its usage (the deployment's tokens this minute) and a failure
 * noted in its health. A plain iterator rather than an async generator: a generator wrapped around the
 * provider's would add its own promises and turns of the event loop to every chunk (measured: ~10 % more CPU a
 * streamed call, bench/gateway/routing.ts).
 */
class DeploymentStream<T> implements AsyncIterableIterator<T> {
  private first: IteratorResult<T> | undefined;
  private readonly onNext = (next: IteratorResult<T>): IteratorResult<T> => {
    if (!next.done) this.deployment.settle(this.usageTokens(next.value), this.started, this.tokens);
    return next;
  };
  private readonly onError = (err: unknown): never => {
    this.deployment.midStreamFailure(err, this.call);
    throw err;
  };

  constructor(
    private readonly deployment: Deployment,
    first: IteratorResult<T>,
    private readonly items: AsyncIterator<T>,
    private readonly call: AttemptCall,
    private readonly started: number,
    private readonly tokens: number,
    private readonly usageTokens: (item: T) => number | undefined,
  ) {
    this.first = first;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<T>> {
    const first = this.first;
    if (first === undefined) return this.items.next().then(this.onNext, this.onError);
    this.first = undefined;
    return Promise.resolve(this.onNext(first));
  }

  /** The reader stopped early (the client left, or it failed): the upstream's stream is let go too. */
  async return(): Promise<IteratorResult<T>> {
    this.first = undefined;
    await this.items.return?.();
    return { done: true, value: undefined };
  }
}

/** An attempt's own abort: the call's abort passed on, or its time up. */
class AttemptTimer {
  private readonly controller = new CallAbortController();
  private readonly timer: NodeJS.Timeout;
  expired = false;

  constructor(
    readonly parent: AbortSignal,
    timeoutMs: number,
  ) {
    if (parent.aborted) this.controller.abort(parent.reason);
    else parent.addEventListener('abort', () => this.controller.abort(parent.reason));
    this.timer = setTimeout(() => {
      this.expired = true;
      this.controller.abort(new Error('attempt timeout'));
    }, timeoutMs);
    this.timer.unref();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  clear(): void {
    clearTimeout(this.timer);
  }
}
