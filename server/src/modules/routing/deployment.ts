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
import type { DeploymentLimits } from './limits';

/**
 * Told when a deployment's breaker opens or closes, or its upstream asks it to rest (a 429's `retry-after`): the
 * router logs it and, with Redis, shares it with the other instances (sync.ts).
 */
export type TransitionListener = (
  deployment: Deployment,
  transition: NonNullable<Transition> | 'rested',
) => void;

/**
 * The probe of a half-open breaker, one across instances (the router's, through sync.ts's Redis lease):
 * `acquire` resolves 0 when this instance holds the lease, or the ms until another's ends; undefined when
 * nothing is shared (no Redis: each instance probes for itself).
 */
export interface ProbeLease {
  acquire(deployment: Deployment): Promise<number> | undefined;
  release(deployment: Deployment): void;
}

/** What a deployment shares with the other instances: its own RPM/TPM quota and its probe. */
export interface SharedParts {
  limits?: DeploymentLimits | undefined;
  probes?: ProbeLease | undefined;
}

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
  private readonly limits: DeploymentLimits | undefined;
  private readonly probes: ProbeLease | undefined;
  /** This instance's probe holds the shared lease: let go once the probe says nothing (or answers). */
  private leaseHeld = false;

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
    shared: SharedParts = {},
  ) {
    this.relay = speaksResponses ? provider.responses : undefined;
    this.responses = this.relay ? this : undefined;
    this.limits = shared.limits;
    this.probes = shared.probes;
  }

  /** Whether the router should try it now: breaker, the upstream's rest, and its own quota as last seen here. */
  available(now: number): boolean {
    return this.health.available(now) && (this.limits === undefined || this.limits.restingMs() === 0);
  }

  /** When it may be tried again (ms), for a Retry-After when no deployment is available. */
  availableAt(now: number): number {
    const at = this.health.availableAt(now);
    return this.limits === undefined ? at : Math.max(at, now + this.limits.restingMs());
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
    const claimed = this.claim(performance.now(), call.promptTokens + call.maxTokens);
    const held = claimed === 0 ? 0 : await claimed;
    const started = performance.now();
    call.upstreamModel = this.upstreamModel;
    const attempt = this.attemptOf(call);
    try {
      const answer = await run();
      attempt?.clear();
      const now = performance.now();
      this.succeeded(now - started);
      this.settle(held, usageTokens(answer));
      return answer;
    } catch (err) {
      throw this.failed(err, call, attempt, held);
    }
  }

  /** A stream, accepted once its first item is in hand (and `check` found nothing wrong with it). */
  private async streamed<T>(
    call: AttemptCall,
    run: () => Promise<AsyncIterable<T>>,
    usageTokens: (item: T) => number | undefined,
    check?: (first: T) => void,
  ): Promise<AsyncIterable<T>> {
    const claimed = this.claim(performance.now(), call.promptTokens + call.maxTokens);
    const held = claimed === 0 ? 0 : await claimed;
    const started = performance.now();
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
      throw this.failed(err, call, attempt, held);
    }
    this.succeeded(performance.now() - started);
    return new DeploymentStream(this, first, items, call, held, usageTokens);
  }

  /**
   * Starts an attempt. The call's order was made when it began: a deployment further down may have opened its
   * breaker or been told to wait meanwhile (other calls failing on it), and is then passed over rather than
   * called (an open breaker's call would also become its probe before the cooldown is over).
   */
  private claim(now: number, tokens: number): 0 | Promise<number> {
    if (!this.available(now)) throw this.resting(now);
    const probe = this.health.begin();
    const lease = probe ? this.probes?.acquire(this) : undefined;
    // The common case, a closed breaker and no quota of its own: nothing to wait for.
    if (lease === undefined && this.limits === undefined) return 0;
    return this.claimShared(lease, tokens, probe);
  }

  /**
   * What other instances share: the probe's lease (another instance probing: this one leaves the deployment out
   * until its lease ends), then the deployment's own quota (tokens held, given back in `settle`).
   */
  private async claimShared(
    lease: Promise<number> | undefined,
    tokens: number,
    probe: boolean,
  ): Promise<number> {
    if (lease !== undefined) {
      const othersMs = await lease;
      if (othersMs > 0) {
        this.health.probedElsewhere(performance.now() + othersMs);
        throw this.resting(performance.now());
      }
      this.leaseHeld = true;
    }
    if (this.limits === undefined) return 0;
    try {
      return await this.limits.claim(tokens);
    } catch (err) {
      // At its quota: a probe that was not sent says nothing of the deployment.
      if (probe) this.neutral();
      throw err;
    }
  }

  private resting(now: number): ServiceError {
    return new ServiceError('unavailable', `The upstream deployment '${this.name}' is resting.`, {
      code: 'deployment_resting',
      retryable: true,
      retryAfterMs: Math.max(1_000, Math.ceil(this.availableAt(now) - now)),
    });
  }

  private succeeded(latencyMs: number): void {
    this.report(this.health.succeeded(performance.now(), latencyMs));
    this.letGo();
  }

  private neutral(): void {
    this.health.neutral();
    this.letGo();
  }

  /**
   * A failure of the deployment. A failed probe keeps its lease (it is not let go): it runs out with the new
   * cooldown the failure opened, so no other instance probes meanwhile.
   */
  private failedHere(now: number): void {
    this.leaseHeld = false;
    this.report(this.health.failedCall(now));
  }

  /** The probe answered or said nothing: its lease is let go (a failed probe's runs out with the new cooldown). */
  private letGo(): void {
    if (!this.leaseHeld) return;
    this.leaseHeld = false;
    this.probes?.release(this);
  }

  /** A failure after the stream's first chunk: the call ends with it, and the deployment's health notes it. */
  midStreamFailure(err: unknown, call: AttemptCall): void {
    if (call.signal.aborted ? timedOut(call.signal) : failsOver(err))
      this.report(this.health.failedCall(performance.now()));
  }

  /** The call's usage is known: the tokens it held of the deployment's quota and did not use go back. */
  settle(held: number, used: number | undefined): void {
    if (held > 0 && used !== undefined) this.limits?.settle(held, used);
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
  private failed(err: unknown, call: AttemptCall, attempt: AttemptTimer | undefined, held: number): unknown {
    attempt?.clear();
    // Nothing came back: the tokens held are given back whole (the request stays counted).
    this.settle(held, 0);
    const now = performance.now();
    const parent = attempt ? attempt.parent : call.signal;
    if (parent.aborted) {
      // The model timeout is this deployment's silence; the client leaving or a stopping server says nothing.
      if (timedOut(parent)) this.failedHere(now);
      else this.neutral();
      return err;
    }
    if (attempt?.expired) {
      this.failedHere(now);
      return new ServiceError(
        'upstream',
        `The upstream deployment '${this.name}' did not answer within the attempt timeout of ${this.attemptTimeoutMs} ms.`,
        { code: 'upstream_timeout', retryable: true },
      );
    }
    if (err instanceof ServiceError && err.code === 'upstream_overloaded') {
      this.health.rateLimited(now, err.retryAfterMs ?? 1_000);
      this.onTransition(this, 'rested');
      this.letGo();
    } else if (failsOver(err)) {
      this.failedHere(now);
    } else {
      this.neutral();
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
    // The quota's unused tokens go back once, with the first item that reports the usage.
    if (!next.done && this.held > 0) {
      const used = this.usageTokens(next.value);
      if (used !== undefined) {
        this.deployment.settle(this.held, used);
        this.held = 0;
      }
    }
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
    /** Tokens held of the deployment's own quota (0 without a tpm), until the usage says what was used. */
    private held: number,
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
