import { setImmediate as nextTurn } from 'node:timers/promises';
import { MessageChannel, type MessagePort, receiveMessageOnPort, type Worker } from 'node:worker_threads';
import { FairQueue } from '../lib/fair-queue';
import type { JsonBounds } from '../lib/json-shape';
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

/**
 * Large JSON bodies are parsed on a thread of their own (json-parse-worker.ts), one at a time, the accounts'
 * bodies in turn (lib/fair-queue.ts): one account's stream of 20 MB bodies waits behind its own, never ahead of
 * another account's. The thread starts with the first large body and is kept; a thread that dies (a body whose
 * parse outgrows its heap) fails only the body it was reading, and the next body starts another.
 */
export class JsonParseThread {
  private worker: Worker | undefined;
  private readonly waiting = new FairQueue<Job>();
  private current: { id: number; job: Job } | undefined;
  private nextId = 1;

  parse(body: Uint8Array | string, owner: string, bounds: JsonBounds): Promise<JsonBodyResult> {
    return new Promise((resolve) => {
      this.waiting.push(owner, { body, bounds, resolve });
      this.pump();
    });
  }

  private pump(): void {
    if (this.current) return;
    const next = this.waiting.take();
    if (!next) {
      this.worker?.unref();
      return;
    }
    const worker = this.worker ?? this.start();
    worker.ref();
    const id = this.nextId++;
    this.current = { id, job: next.item };
    const { body, bounds } = next.item;
    // The bytes are handed over (no copy) when they own their buffer, as Buffer.concat's result does.
    const transfer =
      typeof body !== 'string' && body.byteOffset === 0 && body.byteLength === body.buffer.byteLength
        ? [body.buffer as ArrayBuffer]
        : [];
    worker.postMessage({ id, body, bounds } satisfies ParseRequest, transfer);
  }

  private start(): Worker {
    const { port1: pieces, port2 } = new MessageChannel();
    const worker = startWorkerThread('json-parse-worker', {
      execArgv: [],
      workerData: { pieces: port2 },
      transferList: [port2],
      // A 20 MB body of empty objects parses to ~250 MB of heap.
      resourceLimits: { maxOldGenerationSizeMb: 768, stackSizeMb: 4 },
    });
    this.worker = worker;
    worker.on('message', (reply: ParseReply) => {
      if (this.current?.id !== reply.id) return;
      const { job } = this.current;
      // The next body waits until this one is whole: its pieces are behind this one's on the port.
      rebuild(reply, pieces)
        .then(job.resolve, () =>
          job.resolve({
            ok: false,
            failure: { kind: 'syntax', message: 'the body could not be read back whole' },
          }),
        )
        .finally(() => {
          if (this.current?.id !== reply.id) return;
          this.current = undefined;
          this.pump();
        });
    });
    // An error ends the thread too ('exit' follows).
    worker.on('error', () => {});
    worker.on('exit', () => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      const lost = this.current;
      this.current = undefined;
      lost?.job.resolve({
        ok: false,
        failure: { kind: 'syntax', message: 'the body could not be parsed within the memory a body may use' },
      });
      this.pump();
    });
    return worker;
  }

  /** Ends the thread (tests, shutdown); waiting bodies start a new one. */
  async stop(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
    const lost = this.current;
    this.current = undefined;
    lost?.job.resolve({ ok: false, failure: { kind: 'syntax', message: 'the server is stopping' } });
    this.pump();
  }
}

/** The process's parsing thread. */
export const jsonParseThread = new JsonParseThread();

/**
 * The parsed body, whole: its pieces taken from the port one a turn (value-pieces.ts), then its long strings
 * decoded (large-texts.ts). The pieces are on the port before the reply arrives.
 */
async function rebuild({ result, large, pieces }: ParseReply, port: MessagePort): Promise<JsonBodyResult> {
  if (!result.ok) return result;
  for (let i = 0; i < pieces; i++) {
    const received = receiveMessageOnPort(port);
    if (!received) throw new Error('a piece of the body is missing');
    fillPiece(result.value, received.message as Piece);
    await nextTurn();
  }
  if (large.length > 0) await restoreLargeTexts(result.value, large);
  return result;
}
