import { once } from 'node:events';
import { type AddressInfo, connect } from 'node:net';
import express, { type Response } from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { ServiceError } from '../../errors';
import { contextOf, RequestContext } from '../../http/request-context';
import { systemClock } from '../../lib/clock';
import { SseSink } from './sse-sink';

/** A real HTTP server whose one route hands its response to `drive` as an SseSink. */
async function serve(drive: (sink: SseSink, res: Response) => Promise<void> | void, stallMs = 5_000) {
  const app = express();
  let settle: (res: Response) => void = () => {};
  const finished = new Promise<Response>((resolve) => {
    settle = resolve;
  });
  app.get('/', (_req, res) => {
    const context = new RequestContext('req_test', performance.now(), systemClock);
    res.locals.context = context;
    const sink = new SseSink(res, context, stallMs);
    Promise.resolve(drive(sink, res)).then(() => settle(res));
  });
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  servers.push(server);
  return { port, url: `http://127.0.0.1:${port}/`, finished: () => finished };
}

const servers: import('node:http').Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

/** The events of an SSE body, in order. */
function events(body: string): string[] {
  return body.split('\n\n').filter((e) => e !== '');
}

describe('SseSink: Server-Sent Events on an Express response', () => {
  it("sends the stream's headers, its events in order, and [DONE] at the end", async () => {
    const { url } = await serve((sink) => {
      sink.open();
      sink.send('{"n":1}');
      sink.comment('keep-alive');
      setTimeout(() => {
        sink.send('{"n":2}');
        sink.done();
      }, 20);
    });
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    expect(events(await response.text())).toEqual([
      'data: {"n":1}',
      ': keep-alive',
      'data: {"n":2}',
      'data: [DONE]',
    ]);
  });

  it('gathers the events of one turn into one write', async () => {
    let writes = 0;
    const { url } = await serve((sink, res) => {
      const write = res.write.bind(res);
      res.write = ((...args: Parameters<typeof res.write>) => {
        writes += 1;
        return write(...args);
      }) as typeof res.write;
      sink.open();
      for (let i = 0; i < 50; i++) sink.send(`{"i":${i}}`);
      setTimeout(() => sink.done(), 30);
    });
    const body = await (await fetch(url)).text();
    expect(events(body)).toHaveLength(51);
    expect(writes).toBe(1);
  });

  it("sends an error event in OpenAI's body and records it for the usage record, then ends without [DONE]", async () => {
    const { url, finished } = await serve((sink) => {
      sink.open();
      sink.error(new ServiceError('unavailable', 'The upstream failed.', { code: 'upstream_error' }));
      sink.end();
    });
    const body = await (await fetch(url)).text();
    const [event, ...rest] = events(body);
    expect(rest).toEqual([]);
    const error = JSON.parse((event as string).replace(/^data: /, '')) as { error: Record<string, unknown> };
    expect(Object.keys(error.error).sort()).toEqual(['code', 'message', 'param', 'type']);
    expect(error.error.code).toBe('upstream_error');
    expect(contextOf(await finished()).usage.errorCode).toBe('upstream_error');
  });

  it('waits for a slow reader to drain, and cuts off one that reads nothing for the stall limit', async () => {
    let waited = 0;
    const { port, finished } = await serve(async (sink, res) => {
      sink.open();
      const chunk = JSON.stringify({ text: 'x'.repeat(64 * 1024) });
      // Writes while the connection takes them and waits when it does not: the client never reads, so the
      // kernel's buffers fill (a few MB) and the wait ends with the cut-off.
      for (let i = 0; i < 4_000 && !res.destroyed; i++) {
        sink.send(chunk);
        const ready = sink.ready();
        if (ready) {
          waited += 1;
          await ready;
        }
      }
    }, 300);
    const socket = connect(port, '127.0.0.1');
    socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    socket.pause();
    const res = await finished();
    expect(waited).toBeGreaterThan(0);
    expect(res.destroyed).toBe(true);
    expect(contextOf(res).usage.errorCode).toBe('client_stalled');
    socket.destroy();
  });
});
