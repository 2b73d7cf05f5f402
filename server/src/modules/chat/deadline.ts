import { ServiceError } from '../../errors';
import type { CallAbort } from './deps';

/** The code of the error a call is ended with when the server stops (ChatService.endAll). */
export const SHUTTING_DOWN = 'server_shutting_down';

/**
 * One model call's abort: fired by the transport when the client leaves, or here when the model stays silent past the timeout.
 * Non-streamed calls arm it once; streams re-arm it on every chunk, so a long answer that keeps coming is not cut.
 */
export class CallDeadline {
  private timer: NodeJS.Timeout | undefined;
  private expired = false;
  /** When the model was last heard from (performance.now()); the timer checks it rather than being re-set. */
  private lastHeard = 0;
  /** While the stream waits for its client to read, the model is not the one silent. */
  private held = false;

  /** `call` is aborted by the transport when the client leaves; the deadline aborts it on silence. */
  constructor(
    private readonly timeoutMs: number,
    private readonly call: CallAbort,
  ) {
    this.arm();
  }

  get signal(): AbortSignal {
    return this.call.signal;
  }

  get timedOut(): boolean {
    return this.expired;
  }

  get clientGone(): boolean {
    return this.call.signal.aborted && !this.expired && !this.shutDown;
  }

  /** The server stopped the call: its grace period at shutdown is over. */
  get shutDown(): boolean {
    const reason: unknown = this.call.signal.reason;
    return this.call.signal.aborted && reason instanceof ServiceError && reason.code === SHUTTING_DOWN;
  }

  /**
   * Restarts the silence allowance. Called on every chunk of a stream, so it only notes the time: the one
   * timer, when it fires early, waits for the rest of the allowance instead of a timer being made per chunk.
   */
  arm(): void {
    this.held = false;
    this.lastHeard = performance.now();
    if (this.timer === undefined) this.schedule(this.timeoutMs);
  }

  /** Stops the count of the model's silence until the next `arm`: the stream waits for its client. */
  hold(): void {
    this.held = true;
  }

  private schedule(ms: number): void {
    this.timer = setTimeout(() => {
      const silent = performance.now() - this.lastHeard;
      if (this.held || silent < this.timeoutMs) {
        this.schedule(this.held ? this.timeoutMs : this.timeoutMs - silent);
        return;
      }
      if (this.call.signal.aborted) return;
      this.expired = true;
      this.call.abort(this.timeoutError());
    }, ms);
    this.timer.unref();
  }

  clear(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /**
   * `x-should-retry: false`: the SDKs retry a 500 unless told not to, and an immediate retry of a call that
   * already waited the whole timeout would keep the client waiting that long again, most likely for the same end.
   */
  timeoutError(): ServiceError {
    return new ServiceError(
      'timeout',
      `The model did not respond within the timeout of ${this.timeoutMs} ms (MODEL_TIMEOUT_MS). ` +
        'Not to be retried at once (x-should-retry: false): the call already waited that long. Send it again later, ' +
        'or with stream: true to receive tokens as they come.',
      { code: 'model_timeout', retryable: false },
    );
  }

  /**
   * What a failure means once the deadline's own reasons are taken into account: the timeout, or the reason
   * the call was aborted with (the client leaving), rather than the AbortError a library made of it.
   */
  explain(err: unknown): unknown {
    if (this.expired) return this.timeoutError();
    if (this.call.signal.aborted && this.call.signal.reason instanceof ServiceError)
      return this.call.signal.reason;
    return err;
  }
}
