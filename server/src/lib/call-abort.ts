/**
 * An abort for one model call: the part of AbortController/AbortSignal that the call's users need (undici,
 * `timers/promises`, the providers), in plain objects.
 *
 * Why not Node's own: on Node.js 20 every AbortSignal outlives the young generation's scavenges and is
 * promoted to the old generation, with its listeners and whatever they hold (measured: a loop that makes
 * `new AbortController().signal` and drops it promotes ~0.9 MB per scavenge; plain objects and EventTargets
 * promote nothing). In the gateway benchmark the signals were about a sixth of what a call promoted
 * (516 -> 433 KB per scavenge without them), and promoted objects are what make a scavenge long.
 *
 * Semantics follow the DOM's for the 'abort' event: a listener is kept once however often it is added, is
 * called with the signal as `this` and an 'abort' Event, and every listener runs once, when `abort` is first
 * called; a listener that throws is reported as an uncaught exception, as EventTarget does. Other event types
 * are accepted and never fired, since an AbortSignal dispatches nothing else.
 */
export class CallAbortController {
  readonly signal = new CallAbortSignal();

  abort(reason?: unknown): void {
    this.signal.fire(
      reason === undefined ? new DOMException('This operation was aborted', 'AbortError') : reason,
    );
  }
}

type Listener = Parameters<AbortSignal['addEventListener']>[1];
type ListenerOptions = Parameters<AbortSignal['addEventListener']>[2];

export class CallAbortSignal implements AbortSignal {
  aborted = false;
  // biome-ignore lint/suspicious/noExplicitAny: AbortSignal's own type for the reason.
  reason: any = undefined;
  onabort: ((this: AbortSignal, ev: Event) => unknown) | null = null;
  private listeners: Listener[] | undefined;

  addEventListener(type: string, listener: Listener | null, options?: ListenerOptions): void {
    if (type !== 'abort' || listener === null || this.aborted) return;
    if (this.listeners === undefined) this.listeners = [];
    if (this.listeners.includes(listener)) return;
    this.listeners.push(listener);
    const until = typeof options === 'object' ? options.signal : undefined;
    if (until)
      until.addEventListener('abort', () => this.removeEventListener(type, listener), { once: true });
  }

  removeEventListener(type: string, listener: Listener | null): void {
    if (type !== 'abort' || listener === null || this.listeners === undefined) return;
    const at = this.listeners.indexOf(listener);
    if (at !== -1) this.listeners.splice(at, 1);
  }

  dispatchEvent(event: Event): boolean {
    if (event.type === 'abort') this.notify(event, [...(this.listeners ?? [])]);
    return true;
  }

  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }

  /** Aborts with `reason`: the first call wins, later ones change nothing. */
  fire(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.listeners ?? [];
    this.listeners = undefined;
    this.notify(new Event('abort'), listeners);
  }

  private notify(event: Event, listeners: Listener[]): void {
    const handlers: Listener[] = this.onabort ? [this.onabort as Listener, ...listeners] : listeners;
    for (const listener of handlers) {
      try {
        if (typeof listener === 'function') listener.call(this, event);
        else listener.handleEvent(event);
      } catch (err) {
        process.nextTick(() => {
          throw err;
        });
      }
    }
  }
}
