import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { ThreadCallError, ThreadClient, ThreadLostError } from './thread-rpc';

/**
 * A thread speaking thread-serve.ts's protocol in plain JavaScript (an eval'd worker cannot load TypeScript):
 * `echo` answers after `ms`, `fail` throws an error with a code, `crash` ends the thread; ready after 'ready ms'.
 */
const SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
parentPort.on('message', ({ id, request }) => {
  if (request.op === 'crash') process.exit(3);
  setTimeout(() => {
    if (request.op === 'fail') {
      parentPort.postMessage({ id, ok: false, error: { message: 'no such row', name: 'DatabaseError', code: '42P01' } });
    } else parentPort.postMessage({ id, ok: true, result: request.value });
  }, request.ms ?? 0);
});
setTimeout(() => parentPort.postMessage({ ready: true }), workerData.readyMs);
`;

type Request = { op: 'echo' | 'fail' | 'crash'; value?: unknown; ms?: number };

const clients: ThreadClient<Request, unknown>[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.stop()));
});

function client(events: string[] = [], readyMs = 0): ThreadClient<Request, unknown> {
  let started = 0;
  const made = new ThreadClient<Request, unknown>({
    name: 'test',
    start: () => {
      started += 1;
      events.push(`start ${started}`);
      return new Worker(SOURCE, { eval: true, workerData: { readyMs } });
    },
    onReady: () => events.push('ready'),
    onLost: (reason, ready) =>
      events.push(`lost ${ready ? 'ready' : 'starting'}: ${(reason as Error).message}`),
  });
  clients.push(made);
  return made;
}

describe('ThreadClient', () => {
  it('starts its thread with the first call and answers overlapping calls by id, whatever their order', async () => {
    const events: string[] = [];
    const rpc = client(events);
    expect(rpc.thread).toBeUndefined();
    const slow = rpc.call({ op: 'echo', value: 'slow', ms: 150 });
    const fast = rpc.call({ op: 'echo', value: { fast: [1, 2] }, ms: 0 });
    const order: string[] = [];
    await Promise.all([slow.then(() => order.push('slow')), fast.then(() => order.push('fast'))]);
    expect(order).toEqual(['fast', 'slow']);
    expect(await slow).toBe('slow');
    expect(await fast).toEqual({ fast: [1, 2] });
    expect(rpc.ready).toBe(true);
    expect(events).toEqual(['start 1', 'ready']);
  });

  it("rejects with what the thread's handler threw: its message, class name and code", async () => {
    const rpc = client();
    const err = await rpc.call({ op: 'fail' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ThreadCallError);
    expect(err).toMatchObject({ message: 'no such row', failure: 'DatabaseError', code: '42P01' });
    // The thread is still there for the next call.
    expect(await rpc.call({ op: 'echo', value: 2 })).toBe(2);
  });

  it('a thread that dies fails the calls under way, is reported once, and the next call starts another', async () => {
    const events: string[] = [];
    const rpc = client(events);
    await rpc.call({ op: 'echo', value: 1 });
    const pending = rpc.call({ op: 'echo', value: 'never', ms: 10_000 });
    const crash = rpc.call({ op: 'crash' });
    for (const call of [pending, crash]) {
      const err = await call.catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ThreadLostError);
      expect(err).toMatchObject({
        stopped: false,
        message: 'the test thread stopped: the thread exited with code 3',
      });
    }
    expect(rpc.thread).toBeUndefined();
    expect(rpc.ready).toBe(false);
    expect(await rpc.call({ op: 'echo', value: 'again' })).toBe('again');
    expect(events).toEqual([
      'start 1',
      'ready',
      'lost ready: the thread exited with code 3',
      'start 2',
      'ready',
    ]);
  });

  it('says whether a lost thread had become ready, and stop() fails calls under way without reporting a loss', async () => {
    const events: string[] = [];
    const rpc = client(events, 5_000);
    const early = rpc.call({ op: 'crash' });
    await expect(early).rejects.toBeInstanceOf(ThreadLostError);
    expect(events).toEqual(['start 1', 'lost starting: the thread exited with code 3']);
    const waiting = rpc.call({ op: 'echo', value: 'x', ms: 10_000 });
    await rpc.stop();
    await expect(waiting).rejects.toMatchObject({ stopped: true, message: 'the test thread was stopped' });
    expect(events).toEqual(['start 1', 'lost starting: the thread exited with code 3', 'start 2']);
  });

  it('holds the process open only while a call is under way', async () => {
    const rpc = client();
    const refs: string[] = [];
    const call = rpc.call({ op: 'echo', value: 1, ms: 50 });
    const worker = rpc.thread as Worker;
    const ref = worker.ref.bind(worker);
    const unref = worker.unref.bind(worker);
    worker.ref = () => {
      refs.push('ref');
      ref();
    };
    worker.unref = () => {
      refs.push('unref');
      unref();
    };
    const second = rpc.call({ op: 'echo', value: 2, ms: 80 });
    await Promise.all([call, second]);
    // Already ref'd by the first call; unref'd once both are answered.
    expect(refs).toEqual(['unref']);
  });
});
