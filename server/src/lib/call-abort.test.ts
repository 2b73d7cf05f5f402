import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallAbortController } from './call-abort';

describe('CallAbortController', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    // Answers headers at once and never ends the body: only an abort ends the call.
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('started');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('aborts an undici request in flight with its reason', async () => {
    const abort = new CallAbortController();
    const pending = request(url, { signal: abort.signal }).then((res) => res.body.text());
    await sleep(50);
    const reason = new Error('client closed the connection');
    const started = performance.now();
    abort.abort(reason);
    await expect(pending).rejects.toBe(reason);
    expect(performance.now() - started).toBeLessThan(100);
  });

  it('refuses an undici request made after the abort', async () => {
    const abort = new CallAbortController();
    abort.abort();
    await expect(request(url, { signal: abort.signal })).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('cancels a timers/promises sleep, as Node.js AbortSignal does', async () => {
    const abort = new CallAbortController();
    const slept = sleep(10_000, undefined, { signal: abort.signal });
    abort.abort(new Error('gone'));
    await expect(slept).rejects.toMatchObject({ name: 'AbortError', cause: new Error('gone') });
  });

  it('calls each listener once, with the signal and an abort event, and keeps the first reason', () => {
    const abort = new CallAbortController();
    const calls: unknown[] = [];
    const listener = function (this: unknown, event: Event) {
      calls.push([this, event.type]);
    };
    abort.signal.addEventListener('abort', listener);
    abort.signal.addEventListener('abort', listener);
    abort.signal.addEventListener('abort', { handleEvent: (event) => calls.push(['object', event.type]) });
    abort.signal.onabort = () => calls.push('onabort');
    const removed = () => calls.push('removed');
    abort.signal.addEventListener('abort', removed);
    abort.signal.removeEventListener('abort', removed);
    expect(abort.signal.aborted).toBe(false);
    expect(() => abort.signal.throwIfAborted()).not.toThrow();

    abort.abort('first');
    abort.abort('second');
    expect(calls).toEqual(['onabort', [abort.signal, 'abort'], ['object', 'abort']]);
    expect(abort.signal.aborted).toBe(true);
    expect(abort.signal.reason).toBe('first');
    expect(() => abort.signal.throwIfAborted()).toThrow('first');
  });

  it('defaults the reason to an AbortError DOMException', () => {
    const abort = new CallAbortController();
    abort.abort();
    expect(abort.signal.reason).toBeInstanceOf(DOMException);
    expect(abort.signal.reason.name).toBe('AbortError');
  });

  it('drops a listener whose own signal option aborts first', () => {
    const abort = new CallAbortController();
    const until = new AbortController();
    let called = false;
    abort.signal.addEventListener(
      'abort',
      () => {
        called = true;
      },
      { signal: until.signal },
    );
    until.abort();
    abort.abort();
    expect(called).toBe(false);
  });
});
