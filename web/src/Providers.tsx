import type { QueryClient } from '@tanstack/react-query';
import { QueryClientProvider } from '@tanstack/react-query';
import { type ReactNode, useState } from 'react';
import { createQueryClient, createTrpcClient, TRPCProvider, type TrpcClient } from './lib/trpc';

/** TanStack Query and the typed tRPC client; tests pass their own clients to stub the network. */
export function Providers({
  children,
  queryClient,
  trpcClient,
}: {
  children: ReactNode;
  queryClient?: QueryClient;
  trpcClient?: TrpcClient;
}) {
  const [qc] = useState(() => queryClient ?? createQueryClient());
  const [tc] = useState(() => trpcClient ?? createTrpcClient());
  return (
    <QueryClientProvider client={qc}>
      <TRPCProvider trpcClient={tc} queryClient={qc}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}
