import { parentPort, type Transferable } from 'node:worker_threads';
import type { ReplyMessage, RequestMessage, ThreadFailure } from './thread-rpc';

export interface ServeOptions<R> {
  /** What of a result to hand over rather than copy (ArrayBuffers of long texts). */
  transfer?: (result: R) => Transferable[];
}

/**
 * The thread side of thread-rpc.ts: answers each request with the handler's result or what it threw, under the
 * request's id, then says the thread is ready. Call it once the module has loaded what it needs (the BPE, the
 * grammars): calls sent before wait in the port's queue.
 */
export function serveRequests<Q, R>(
  handle: (request: Q) => R | Promise<R>,
  options: ServeOptions<R> = {},
): void {
  if (!parentPort) throw new Error('serveRequests must run in a worker thread');
  const port = parentPort;
  port.on('message', ({ id, request }: RequestMessage<Q>) => {
    new Promise<R>((resolve) => resolve(handle(request))).then(
      (result) =>
        port.postMessage(
          { id, ok: true, result } satisfies ReplyMessage<R>,
          options.transfer?.(result) ?? [],
        ),
      (err: unknown) => port.postMessage({ id, ok: false, error: failureOf(err) } satisfies ReplyMessage<R>),
    );
  });
  port.postMessage({ ready: true } satisfies ReplyMessage<R>);
}

function failureOf(err: unknown): ThreadFailure {
  if (!(err instanceof Error)) return { message: String(err), name: 'Error' };
  const code = (err as { code?: unknown }).code;
  return { message: err.message, name: err.name, ...(typeof code === 'string' && { code }) };
}
