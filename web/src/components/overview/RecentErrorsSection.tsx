import { useInfiniteQuery } from '@tanstack/react-query';
import { gqlRequest } from '../../graphql/client';
import { RecentErrorsQuery, type UsageVariables } from '../../graphql/documents';
import { Empty, ErrorState, Loading } from '../States';
import { RecentErrors } from './RecentErrors';

const PAGE = 10;

/** Recent errors of the period, paged by cursor; refreshed with the rest of the overview. */
export function RecentErrorsSection({
  variables,
  refetchMs,
}: {
  variables: UsageVariables;
  refetchMs: number;
}) {
  const errors = useInfiniteQuery({
    queryKey: ['graphql', 'recentErrors', variables],
    queryFn: ({ pageParam, signal }) =>
      gqlRequest(RecentErrorsQuery, { ...variables, first: PAGE, after: pageParam }, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => {
      const info = last.usage.recentErrors.pageInfo;
      return info.hasNextPage ? info.endCursor : undefined;
    },
    refetchInterval: refetchMs,
  });
  if (errors.isPending) return <Loading label="Loading recent errors" />;
  if (errors.isError) return <ErrorState message={errors.error.message} onRetry={() => errors.refetch()} />;
  const rows = errors.data.pages.flatMap((p) =>
    p.usage.recentErrors.edges.map((e) => ({
      id: e.cursor,
      status: e.node.status,
      method: e.node.method,
      path: e.node.path,
      message: e.node.message ?? e.node.code ?? 'No message',
      at: e.node.occurredAt,
      maskedKey: e.node.maskedKey,
    })),
  );
  if (rows.length === 0) return <Empty title="No errors in this period" />;
  return (
    <RecentErrors
      rows={rows}
      hasMore={errors.hasNextPage}
      loadingMore={errors.isFetchingNextPage}
      onMore={() => errors.fetchNextPage()}
    />
  );
}
