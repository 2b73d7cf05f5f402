import { type SseEvent, SseParser } from '@tessera/shared';
import { type Dispatcher, Pool } from 'undici';
import { ServiceError } from '../../errors';
import { upstreamConnectionError, upstreamStatusError, upstreamStreamError } from './errors';

export interface UpstreamTarget {
  name: string;
  baseUrl: string;
  /** Sent as a header; never logged, never returned. */
  apiKey: string | undefined;
}

/** A keep-alive connection pool to one upstream and the POST both HTTP providers make. */
export class UpstreamClient {
  private readonly pool: Pool;
  private readonly basePath: string;
  /** The request headers, one object for every call (undici reads it, never changes it). */
  private readonly postHeaders: Record<string, string>;
  /** The full path of each endpoint called, made once rather than a string a call. */
  private readonly paths = new Map<string, string>();

  constructor(
    readonly target: UpstreamTarget,
    headers: Record<string, string>,
  ) {
    const url = new URL(target.baseUrl);
    this.basePath = url.pathname.replace(/\/$/, '');
    this.pool = new Pool(url.origin, { connections: 256, keepAliveTimeout: 30_000, pipelining: 1 });
    this.postHeaders = { 'content-type': 'application/json', ...headers };
  }

  /** POSTs JSON; resolves on a 2xx with the open response, otherwise throws our mapped error. */
  async post(path: string, body: unknown, signal: AbortSignal): Promise<Dispatcher.ResponseData> {
    let full = this.paths.get(path);
    if (full === undefined) {
      full = `${this.basePath}${path}`;
      this.paths.set(path, full);
    }
    let res: Dispatcher.ResponseData;
    try {
      res = await this.pool.request({
        method: 'POST',
        path: full,
        headers: this.postHeaders,
        body: JSON.stringify(body),
        signal,
      });
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      throw upstreamConnectionError(this.target.name, err);
    }
    if (res.statusCode >= 200 && res.statusCode < 300) return res;
    const text = await res.body.text().catch(() => '');
    throw upstreamStatusError(this.target.name, res.statusCode, {
      retryAfter: headerOf(res.headers['retry-after']),
      message: messageOf(text),
      secret: this.target.apiKey,
    });
  }

  /** The JSON body of a 2xx answer; anything else is the upstream's failure, not a 500 of ours. */
  async json<T>(res: Dispatcher.ResponseData): Promise<T> {
    try {
      return (await res.body.json()) as T;
    } catch (err) {
      throw upstreamStreamError(this.target.name, 'the answer was not valid JSON', err);
    }
  }

  /**
   * The Server-Sent Events of a 2xx answer's body, parsed as its bytes arrive. A connection lost mid-body
   * (reset, closed early) or a body that is no event stream is the upstream's failure (`upstream_error`), not
   * our 500; our own abort (client gone, timeout) passes through unchanged.
   * A reader that stops early (the answer's last event seen, or a failure of its own) leaves the rest of the
   * body to be read and dropped, up to a bound, so that the connection can serve the next call: destroying an
   * unfinished body costs the connection, and Node.js makes an error with a stack trace for it every time.
   */
  async *events(res: Dispatcher.ResponseData, signal: AbortSignal): AsyncGenerator<SseEvent> {
    const parser = new SseParser((m) => upstreamStreamError(this.target.name, m));
    let ended = false;
    try {
      for await (const bytes of res.body.iterator({ destroyOnReturn: false })) {
        for (const event of parser.push(bytes as Uint8Array)) yield event;
      }
      ended = true;
      for (const event of parser.end()) yield event;
    } catch (err) {
      if (signal.aborted || err instanceof ServiceError) throw err;
      throw upstreamStreamError(this.target.name, 'the connection was lost', err);
    } finally {
      if (!ended && !signal.aborted && !res.body.destroyed) {
        res.body.dump({ limit: DRAIN_LIMIT }).catch(() => {});
      }
    }
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

/** How much of a body a reader left unread is read and dropped to keep its connection; past it, it is closed. */
const DRAIN_LIMIT = 64 * 1024;

function headerOf(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function messageOf(text: string): string | undefined {
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } };
    return typeof parsed.error?.message === 'string' ? parsed.error.message.slice(0, 500) : undefined;
  } catch {
    return undefined;
  }
}
