/** A minimal tRPC-over-HTTP client with a cookie jar, speaking the same wire format as the dashboard. */
export class TrpcTestClient {
  cookie: string | undefined;

  constructor(private readonly baseUrl: string) {}

  async query<T = unknown>(path: string, input?: unknown): Promise<TrpcResult<T>> {
    const qs = input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`;
    return this.send<T>(`${this.baseUrl}/trpc/${path}${qs}`, { method: 'GET' });
  }

  async mutation<T = unknown>(
    path: string,
    input?: unknown,
    headers: Record<string, string> = {},
  ): Promise<TrpcResult<T>> {
    return this.send<T>(`${this.baseUrl}/trpc/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-tessera-csrf': '1', ...headers },
      body: JSON.stringify(input ?? null),
    });
  }

  private async send<T>(url: string, init: RequestInit): Promise<TrpcResult<T>> {
    const res = await fetch(url, {
      ...init,
      headers: { ...(init.headers as Record<string, string>), ...(this.cookie && { cookie: this.cookie }) },
    });
    const setCookie = res.headers.get('set-cookie');
    if (setCookie) this.cookie = setCookie.split(';')[0];
    const body = (await res.json()) as { result?: { data: T }; error?: TrpcErrorShape };
    return {
      status: res.status,
      data: body.result?.data,
      error: body.error,
      setCookie,
      headers: res.headers,
    };
  }
}

export interface TrpcErrorShape {
  message: string;
  code: number;
  data: { code: string; httpStatus: number; fieldErrors?: Record<string, string[]> | null };
}

export interface TrpcResult<T> {
  status: number;
  data: T | undefined;
  error: TrpcErrorShape | undefined;
  setCookie: string | null;
  headers: Headers;
}
