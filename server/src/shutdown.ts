import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { randomBase62 } from './lib/ids';
import type { Logger } from './logger';
import { shuttingDown } from './modules/chat';
import { toHttpError } from './rest/errors';

/**
 * Graceful shutdown of the HTTP server (docs/deployment.md, "Graceful shutdown"). From `drain()` on:
 * - no connection is accepted, idle keep-alive connections are closed;
 * - every response not yet started carries `Connection: close`, and a response already under way (a stream)
 *   has its connection closed when it ends, so no new request starts on a connection opened before;
 *   a request that still arrives on a connection that had already served one is refused with a 503;
 * - requests and streams under way go on; the server is closed as soon as the last connection is;
 * - at the end of the grace period, chat calls still running are ended (a stream with an error event and
 *   `[DONE]`, a whole answer with a 503), and a moment later any connection left is closed.
 */
export class GracefulShutdown {
  private draining = false;
  private readonly inflight = new Set<ServerResponse>();
  /** Connections that have carried a request. */
  private readonly used = new WeakSet<Socket>();
  /** Forgets a response once it is over; `this` is the response (one function, not a closure a request). */
  private readonly forget: (this: ServerResponse) => void;

  constructor(
    private readonly server: Server,
    private readonly deps: { logger: Logger; endCalls: () => number },
  ) {
    const inflight = this.inflight;
    this.forget = function forget(this: ServerResponse) {
      inflight.delete(this);
    };
  }

  /** The server's request listener around the app's: keeps count of the responses under way. */
  listener(inner: RequestListener): RequestListener {
    return (req: IncomingMessage, res: ServerResponse) => {
      const socket = req.socket;
      if (this.draining) {
        if (this.used.has(socket)) {
          refuse(res);
          return;
        }
        res.shouldKeepAlive = false;
      }
      this.used.add(socket);
      this.inflight.add(res);
      // 'close' comes once: `on` rather than `once`, which wraps the listener anew for every request.
      res.on('close', this.forget);
      inner(req, res);
    };
  }

  /** Drains the server: resolves once every connection is closed, `graceMs` at most (and about a second). */
  async drain(graceMs: number): Promise<void> {
    this.draining = true;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    for (const res of this.inflight) {
      if (!res.headersSent) {
        res.shouldKeepAlive = false;
        continue;
      }
      const socket = res.socket;
      if (socket) res.once('finish', () => socket.end());
    }
    let last: NodeJS.Timeout | undefined;
    const grace = setTimeout(() => {
      const open = this.inflight.size;
      const ended = this.deps.endCalls();
      this.deps.logger.warn(
        { graceMs, open, chatCallsEnded: ended },
        'shutdown grace period over: ending what is left',
      );
      // Ended streams write their last events within a turn or two; anything else is cut.
      last = setTimeout(() => this.server.closeAllConnections(), ended > 0 ? 1_000 : 0);
    }, graceMs);
    await closed;
    clearTimeout(grace);
    clearTimeout(last);
  }
}

/** A request on a connection opened before shutdown began: 503 to retry elsewhere, and the connection closed. */
function refuse(res: ServerResponse): void {
  const id = `req_${randomBase62(24)}`;
  const http = toHttpError(shuttingDown(), id);
  res.shouldKeepAlive = false;
  res.writeHead(http.status, {
    ...http.headers,
    'content-type': 'application/json; charset=utf-8',
    'x-request-id': id,
    connection: 'close',
  });
  res.end(JSON.stringify(http.body));
}
