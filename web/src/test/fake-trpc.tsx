import { QueryClient } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { vi } from 'vitest';
import { createTrpcClient } from '../lib/trpc';
import { Providers } from '../Providers';

/** A procedure's failure as the server sends it (same shape as trpc.ts's errorFormatter). */
export class FakeTrpcError {
  constructor(
    readonly code: string,
    readonly httpStatus: number,
    readonly message: string,
    readonly fieldErrors: Record<string, string[]> | null = null,
  ) {}
}

type Handler = (input: unknown) => unknown;
/** Answers non-tRPC requests (the REST API), e.g. with a streamed body. */
export type RestHandler = (url: URL, init: RequestInit) => Response | Promise<Response>;

export interface FakeCall {
  path: string;
  input: unknown;
  method: string;
  headers: Record<string, string>;
}

/**
 * Speaks tRPC's batched HTTP wire format to the real client: components under test go through the same
 * links, headers and error parsing as in production, only the server is replaced by `handlers`.
 */
export function fakeTrpcFetch(handlers: Record<string, Handler>, rest?: RestHandler) {
  const calls: FakeCall[] = [];
  const fetchImpl = vi.fn(async (url: string | URL | Request, init?: RequestInit) => {
    const u = new URL(String(url), 'http://localhost');
    if (!u.pathname.startsWith('/trpc/')) {
      if (!rest) throw new TypeError('Failed to fetch');
      return rest(u, init ?? {});
    }
    const paths = decodeURIComponent(u.pathname.replace(/^\/trpc\//, '')).split(',');
    const method = init?.method ?? 'GET';
    const inputs = (
      method === 'GET'
        ? JSON.parse(u.searchParams.get('input') ?? '{}')
        : JSON.parse(String(init?.body ?? '{}'))
    ) as Record<string, unknown>;
    const headers = Object.fromEntries(new Headers(init?.headers).entries());
    let status = 200;
    const results = await Promise.all(
      paths.map(async (path, i) => {
        const input = inputs[String(i)];
        calls.push({ path, input, method, headers });
        const handler = handlers[path];
        try {
          if (!handler) throw new FakeTrpcError('NOT_FOUND', 404, `No procedure ${path}`);
          return { result: { data: await handler(input) } };
        } catch (err) {
          if (!(err instanceof FakeTrpcError)) throw err;
          status = err.httpStatus;
          return {
            error: {
              message: err.message,
              code: -32600,
              data: { code: err.code, httpStatus: err.httpStatus, path, fieldErrors: err.fieldErrors },
            },
          };
        }
      }),
    );
    return new Response(JSON.stringify(results), { status, headers: { 'content-type': 'application/json' } });
  });
  return { fetchImpl, calls };
}

export function renderWithTrpc(
  ui: ReactElement,
  handlers: Record<string, Handler>,
  rest?: RestHandler,
  queryClient: QueryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } }),
) {
  const fake = fakeTrpcFetch(handlers, rest);
  vi.stubGlobal('fetch', fake.fetchImpl);
  const utils = render(
    <Providers queryClient={queryClient} trpcClient={createTrpcClient('http://localhost')}>
      {ui}
    </Providers>,
  );
  return { ...utils, calls: fake.calls, queryClient };
}
