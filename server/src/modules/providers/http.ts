import { type Dispatcher, Pool } from 'undici';
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

  constructor(
    readonly target: UpstreamTarget,
    private readonly headers: Record<string, string>,
  ) {
    const url = new URL(target.baseUrl);
    this.basePath = url.pathname.replace(/\/$/, '');
    this.pool = new Pool(url.origin, { connections: 256, keepAliveTimeout: 30_000, pipelining: 1 });
  }

  /** POSTs JSON; resolves on a 2xx with the open response, otherwise throws our mapped error. */
  async post(path: string, body: unknown, signal: AbortSignal): Promise<Dispatcher.ResponseData> {
    let res: Dispatcher.ResponseData;
    try {
      res = await this.pool.request({
        method: 'POST',
        path: `${this.basePath}${path}`,
        headers: { 'content-type': 'application/json', ...this.headers },
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
   * The bytes of a 2xx answer's body. A connection lost mid-body (reset, closed early) is the upstream's
   * failure (`upstream_error`), not our 500; our own abort (client gone, timeout) passes through unchanged.
   */
  async *body(res: Dispatcher.ResponseData, signal: AbortSignal): AsyncGenerator<Uint8Array | string> {
    try {
      for await (const bytes of res.body) yield bytes as Uint8Array | string;
    } catch (err) {
      if (signal.aborted) throw err;
      throw upstreamStreamError(this.target.name, 'the connection was lost', err);
    }
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

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
