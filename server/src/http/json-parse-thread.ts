import { setImmediate as nextTurn } from 'node:timers/promises';
import { MessageChannel, type MessagePort, receiveMessageOnPort } from 'node:worker_threads';
import { FairQueue } from '../lib/fair-queue';
import type { JsonBounds } from '../lib/json-shape';
import { ThreadClient, ThreadLostError } from '../lib/thread-rpc';
import { startWorkerThread } from '../lib/worker-thread';
import type { ParseReply, ParseRequest } from './json-parse-worker';
import type { JsonBodyResult } from './json-text';
import { restoreLargeTexts } from './large-texts';
import { fillPiece, type Piece } from './value-pieces';

interface Job {
  body: Uint8Array | string;
  bounds: JsonBounds;
  resolve: (result: JsonBodyResult) => void;
}

const failed = (message: string): JsonBodyResult => ({ ok: false, failure: { kind: 'syntax', message } });

/**
 * Large JSON bodies are parsed on a thread of their own (json-parse-worker.ts), one at a time, the accounts'
 * bodies in turn (lib/fair-queue.ts): one account's stream of 20 MB bodies waits behind its own, never ahead of
 * another account's. The thread starts with the first large body and is kept; a thread that dies (a body whose
 * parse outgrows its heap) fails only the body it was reading, and the next body starts another.
 */
export class JsonParseThread {
  /** The port the running thread posts a body's pieces on (value-pieces.ts); each thread gets a new one. */
  private pieces: MessagePort | undefined;
  private readonly thread = new ThreadClient<ParseRequest, ParseReply>({
    name: 'json-parse-worker',
    start: () => {
      const { port1, port2 } = new MessageChannel();
      this.pieces?.close();
      this.pieces = port1;
      return startWorkerThread('json-parse-worker', {
        execArgv: [],
        workerData: { pieces: port2 },
        transferList: [port2],
        // A 20 MB body of empty objects parses to ~250 MB of heap.
        resourceLimits: { maxOldGenerationSizeMb: 768, stackSizeMb: 4 },
      });
    },
  });
  private readonly waiting = new FairQueue<Job>();
  private busy = false;

  parse(body: Uint8Array | string, owner: string, bounds: JsonBounds): Promise<JsonBodyResult> {
    return new Promise((resolve) => {
      this.waiting.push(owner, { body, bounds, resolve });
      this.pump();
    });
  }

  private pump(): void {
    if (this.busy) return;
    const next = this.waiting.take();
    if (!next) return;
    this.busy = true;
    const { body, bounds, resolve } = next.item;
    // The bytes are handed over (no copy) when they own their buffer, as Buffer.concat's result does.
    const transfer =
      typeof body !== 'string' && body.byteOffset === 0 && body.byteLength === body.buffer.byteLength
        ? [body.buffer as ArrayBuffer]
        : [];
    this.thread
      .call({ body, bounds }, transfer)
      // The next body waits until this one is whole: its pieces are behind this one's on the port.
      .then((reply) => rebuild(reply, this.pieces))
      .then(resolve, (err: unknown) => {
        if (!(err instanceof ThreadLostError)) resolve(failed('the body could not be read back whole'));
        else if (err.stopped) resolve(failed('the server is stopping'));
        else resolve(failed('the body could not be parsed within the memory a body may use'));
      })
      .finally(() => {
        this.busy = false;
        this.pump();
      });
  }

  /** Ends the thread (tests, shutdown); waiting bodies start a new one. */
  stop(): Promise<void> {
    return this.thread.stop();
  }
}

/** The process's parsing thread. */
export const jsonParseThread = new JsonParseThread();

/**
 * The parsed body, whole: its pieces taken from the port one a turn (value-pieces.ts), then its long strings
 * decoded (large-texts.ts). The pieces are on the port before the reply arrives.
 */
async function rebuild(
  { result, large, pieces }: ParseReply,
  port: MessagePort | undefined,
): Promise<JsonBodyResult> {
  if (!result.ok) return result;
  for (let i = 0; i < pieces; i++) {
    const received = port && receiveMessageOnPort(port);
    if (!received) throw new Error('a piece of the body is missing');
    fillPiece(result.value, received.message as Piece);
    await nextTurn();
  }
  if (large.length > 0) await restoreLargeTexts(result.value, large);
  return result;
}
