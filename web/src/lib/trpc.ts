import { QueryCache, QueryClient } from '@tanstack/react-query';
import type { AppRouter } from '@tessera/server/router';
import { createTRPCClient, httpBatchLink, TRPCClientError } from '@trpc/client';
import { createTRPCContext } from '@trpc/tanstack-react-query';
import { GraphQLRequestError } from '../graphql/client';

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

/** The server refuses mutations without this header: a cross-site form cannot set it. */
export const CSRF_HEADER = 'x-tessera-csrf';

export function createTrpcClient(baseUrl = '') {
  return createTRPCClient<AppRouter>({
    links: [
      httpBatchLink({
        url: `${baseUrl}/trpc`,
        headers: ({ opList }) => (opList.some((op) => op.type === 'mutation') ? { [CSRF_HEADER]: '1' } : {}),
        fetch: (url, init) => fetch(url, { ...init, credentials: 'same-origin' }),
      }),
    ],
  });
}

export type TrpcClient = ReturnType<typeof createTrpcClient>;

export function createQueryClient(): QueryClient {
  const client: QueryClient = new QueryClient({
    // A session that ends (expired, signed out in another tab) makes reads fail: ask who we are again,
    // which turns the app back to the sign-in page instead of leaving error boxes everywhere.
    queryCache: new QueryCache({
      onError: (err) => {
        // FORBIDDEN too: a member removed (or demoted) while a page is open finds out who they are now.
        if (
          isUnauthorized(err) ||
          (isTrpcError(err) && err.data?.code === 'FORBIDDEN') ||
          (err instanceof GraphQLRequestError && (err.code === 'UNAUTHENTICATED' || err.code === 'FORBIDDEN'))
        )
          void client.invalidateQueries({ queryKey: [['auth', 'me']] });
      },
    }),
    defaultOptions: {
      queries: {
        staleTime: 15_000,
        refetchOnWindowFocus: true,
        // A 4xx will not heal by retrying; a network blip may.
        retry: (count, err) => count < 2 && !(isTrpcError(err) && (err.data?.httpStatus ?? 500) < 500),
      },
    },
  });
  return client;
}

interface ErrorData {
  code?: string;
  httpStatus?: number;
  fieldErrors?: Record<string, string[]> | null;
}

function isTrpcError(err: unknown): err is TRPCClientError<AppRouter> & { data?: ErrorData } {
  return err instanceof TRPCClientError;
}

/** `{ email: 'Enter a valid email address' }`: the first server message for each field of a form. */
export function fieldErrorsOf(err: unknown): Record<string, string> {
  if (!isTrpcError(err)) return {};
  const out: Record<string, string> = {};
  for (const [field, messages] of Object.entries(err.data?.fieldErrors ?? {})) {
    if (messages[0]) out[field] = messages[0];
  }
  return out;
}

/** A sentence for the person: the server's message, or a plain network failure. */
export function messageOf(err: unknown): string {
  if (isTrpcError(err)) return err.message;
  if (err instanceof Error)
    return err.message === 'Failed to fetch' ? 'The server could not be reached.' : err.message;
  return 'Something went wrong.';
}

export function isUnauthorized(err: unknown): boolean {
  return isTrpcError(err) && err.data?.code === 'UNAUTHORIZED';
}
