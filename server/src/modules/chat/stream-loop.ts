import { ServiceError } from '../../errors';
import { type AttemptTarget, withRetries } from './attempts';
import { CallDeadline } from './deadline';
import { attemptOptions, type ChatCall, type ChatDeps } from './deps';
import type { UsageMeter } from './meter';

/** What a stream loop needs of where its events go: chat's ChatSink and the Responses relay's sink have it. */
export interface StreamTransport {
  /** The status and headers, once an upstream has accepted the call. */
  open(): void;
  /** Undefined while the client keeps up; otherwise settles when it has read enough or gone. */
  ready(): Promise<void> | undefined;
  comment(text: string): void;
}

/** One kind of stream's part of the loop: how an attempt starts, and what each item and the end send. */
export interface StreamPass<T> {
  /** A call relayed to the upstreams' own Responses API (its fallback must speak it too). */
  responses: boolean;
  /** The failure log line, for a failure after the stream opened that is not a ServiceError (a bug). */
  failureLog: string;
  /** Starts one attempt on a target (a provider or a deployment). */
  attempt(target: AttemptTarget, signal: AbortSignal): Promise<AsyncIterable<T>>;
  /** An attempt was accepted (its first item in hand), before the stream opens. */
  accepted(target: AttemptTarget): void;
  /** One item: sends what it makes for the client; false when it made nothing to send. */
  item(item: T): boolean;
  /** The upstream's stream is over: the closing events and the response's end. */
  finish(): Promise<void>;
  /**
   * The stream failed after it opened, `cause` explained by the deadline: the error events (not when the client
   * has gone) and the response's end.
   */
  failed(cause: unknown, deadline: CallDeadline): void;
}

/**
 * The one loop of every relayed stream (chat completions, and the Responses API relayed to an upstream that
 * speaks it): retries and failover before the stream opens (withRetries), never after; the model timeout re-armed
 * on every item, and held while the client is slow to read (backpressure: the upstream is not read meanwhile);
 * keep-alive comments while nothing else is written; once opened, a failure is the stream's error events and its
 * end, never a second answer. Before it opened, the failure is thrown for the transport to answer.
 *
 * The meter is charged once an upstream accepted the call, and when the call is cut (timeout, client gone,
 * shutdown) while one may have been working: what was sent is billed however the stream ends.
 */
export async function pumpStream<T>(
  deps: ChatDeps,
  call: ChatCall,
  meter: UsageMeter,
  sink: StreamTransport,
  pass: StreamPass<T>,
): Promise<void> {
  const deadline = new CallDeadline(deps.timeoutMs, call.abort);
  let opened = false;
  let lastWrite = Date.now();
  const keepAlive = setInterval(
    () => {
      if (opened && Date.now() - lastWrite >= deps.keepAliveMs) {
        sink.comment('keep-alive');
        lastWrite = Date.now();
      }
    },
    Math.max(10, Math.floor(deps.keepAliveMs / 2)),
  );
  keepAlive.unref();
  try {
    const { value: items, target } = await withRetries(
      attemptOptions(deps, call, deadline.signal, pass.responses),
      (t) => {
        call.onProvider(t.provider.name);
        return pass.attempt(t, deadline.signal);
      },
    );
    meter.model = target.entry.id;
    meter.charged = true;
    pass.accepted(target);
    sink.open();
    opened = true;
    for await (const item of items) {
      deadline.arm();
      if (!pass.item(item)) continue;
      lastWrite = Date.now();
      const slow = sink.ready();
      if (slow) {
        deadline.hold();
        await slow;
        deadline.arm();
      }
    }
    await pass.finish();
  } catch (err) {
    if (deadline.timedOut || deadline.clientGone || deadline.shutDown) meter.charged = true;
    const cause = deadline.explain(err);
    if (!opened) throw cause;
    // A client that leaves is ordinary traffic (its request's access line says so), not a failure.
    if (!(cause instanceof ServiceError) && !deadline.clientGone)
      deps.logger.error({ err: cause }, pass.failureLog);
    pass.failed(cause, deadline);
  } finally {
    deadline.clear();
    clearInterval(keepAlive);
  }
}
