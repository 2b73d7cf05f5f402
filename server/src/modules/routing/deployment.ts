import type { Usage } from '@tessera/shared';
import { ServiceError } from '../../errors';
import { CallAbortController } from '../../lib/call-abort';
import type { ChatProvider, ProviderCall, ProviderChunk, ProviderCompletion } from '../providers';
import { isRetryable } from '../providers';
import type { DeploymentHealth, Transition } from './health';

/** Told when a deployment's breaker opens or closes (the router logs it and moves its gauge). */
export type TransitionListener = (deployment: Deployment, transition: Transition) => void;

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
export class Deployment implements ChatProvider {
  /** Smooth weighted round-robin's running score (router.ts). */
  current = 0;

  constructor(
    readonly name: string,
    readonly upstreamModel: string,
    readonly weight: number,
    readonly health: DeploymentHealth,
    private readonly provider: ChatProvider,
    /** 0: no time limit of its own (the model's timeout applies). */
    private readonly attemptTimeoutMs: number,
    private readonly onTransition: TransitionListener,
  ) {}

  async complete(call: ProviderCall): Promise<ProviderCompletion> {
    const started = performance.now();
    const tokens = call.promptTokens + call.maxTokens;
    this.claim(started, tokens);
    call.upstreamModel = this.upstreamModel;
    const attempt = this.attemptOf(call);
    try {
      const answer = await this.provider.complete(call);
      attempt?.clear();
      const now = performance.now();
      this.report(this.health.succeeded(now, now - started));
      this.health.settleTokens(started, tokens, answer.usage.prompt_tokens + answer.usage.completion_tokens);
      return answer;
    } catch (err) {
      throw this.failed(err, call, attempt);
    }
  }

  async stream(call: ProviderCall): Promise<AsyncIterable<ProviderChunk>> {
    const started = performance.now();
    const tokens = call.promptTokens + call.maxTokens;
    this.claim(started, tokens);
    call.upstreamModel = this.upstreamModel;
    const attempt = this.attemptOf(call);
    let chunks: AsyncIterator<ProviderChunk>;
    let first: IteratorResult<ProviderChunk>;
    try {
      chunks = (await this.provider.stream(call))[Symbol.asyncIterator]();
      first = await chunks.next();
      attempt?.clear();
    } catch (err) {
      throw this.failed(err, call, attempt);
    }
    const now = performance.now();
    this.report(this.health.succeeded(now, now - started));
    return new DeploymentChunks(this, first, chunks, call, started, tokens);
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
  midStreamFailure(err: unknown, call: ProviderCall): void {
    if (call.signal.aborted ? timedOut(call.signal) : failsOver(err))
      this.report(this.health.failedCall(performance.now()));
  }

  settle(usage: Usage | null | undefined, started: number, tokens: number): void {
    if (usage) this.health.settleTokens(started, tokens, usage.prompt_tokens + usage.completion_tokens);
  }

  /**
   * With an attempt timeout: the call gets a signal of its own, aborted by the call's (client gone, model
   * timeout) or by this attempt's time running out. A timer a routed attempt, only when the model has one.
   */
  private attemptOf(call: ProviderCall): AttemptTimer | undefined {
    if (this.attemptTimeoutMs <= 0) return undefined;
    const timer = new AttemptTimer(call.signal, this.attemptTimeoutMs);
    call.signal = timer.signal;
    return timer;
  }

  /** Notes what the failure says of the deployment and returns the error the call should see. */
  private failed(err: unknown, call: ProviderCall, attempt: AttemptTimer | undefined): unknown {
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

/**
 * A deployment's stream as the chat path reads it: the first chunk (already in hand), then the upstream's own
 * chunks passed through as they come, each seen for its usage (the deployment's tokens this minute) and a
 * failure noted in its health. A plain iterator rather than an async generator: a generator wrapped around the
 * provider's would add its own promises and turns of the event loop to every chunk (measured: ~10 % more CPU a
 * streamed call, bench/gateway/routing.ts).
 */
class DeploymentChunks implements AsyncIterableIterator<ProviderChunk> {
  private first: IteratorResult<ProviderChunk> | undefined;
  private readonly onNext = (next: IteratorResult<ProviderChunk>): IteratorResult<ProviderChunk> => {
    if (!next.done) this.deployment.settle(next.value.usage, this.started, this.tokens);
    return next;
  };
  private readonly onError = (err: unknown): never => {
    this.deployment.midStreamFailure(err, this.call);
    throw err;
  };

  constructor(
    private readonly deployment: Deployment,
    first: IteratorResult<ProviderChunk>,
    private readonly chunks: AsyncIterator<ProviderChunk>,
    private readonly call: ProviderCall,
    private readonly started: number,
    private readonly tokens: number,
  ) {
    this.first = first;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<ProviderChunk>> {
    const first = this.first;
    if (first === undefined) return this.chunks.next().then(this.onNext, this.onError);
    this.first = undefined;
    return Promise.resolve(this.onNext(first));
  }

  /** The reader stopped early (the client left, or it failed): the upstream's stream is let go too. */
  async return(): Promise<IteratorResult<ProviderChunk>> {
    this.first = undefined;
    await this.chunks.return?.();
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
