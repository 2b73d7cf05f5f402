import { ServiceError } from '../../errors';

/**
 * One model call's abort signal: fires when the client leaves or when the model stays silent past the timeout.
 * Non-streamed calls arm it once; streams re-arm it on every chunk, so a long answer that keeps coming is not cut.
 */
export class CallDeadline {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private expired = false;

  constructor(
    private readonly timeoutMs: number,
    private readonly client: AbortSignal,
  ) {
    if (client.aborted) this.controller.abort(client.reason);
    else client.addEventListener('abort', () => this.controller.abort(client.reason), { once: true });
    this.arm();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get timedOut(): boolean {
    return this.expired;
  }

  get clientGone(): boolean {
    return this.client.aborted;
  }

  arm(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.expired = true;
      this.controller.abort(this.timeoutError());
    }, this.timeoutMs);
    this.timer.unref();
  }

  clear(): void {
    clearTimeout(this.timer);
  }

  timeoutError(): ServiceError {
    return new ServiceError(
      'timeout',
      `The model did not respond within the timeout of ${this.timeoutMs} ms (MODEL_TIMEOUT_MS). Please try again.`,
      { code: 'model_timeout' },
    );
  }

  /** What a failure means once the deadline's own reasons are taken into account. */
  explain(err: unknown): unknown {
    if (this.expired) return this.timeoutError();
    return err;
  }
}
