import { useInfiniteQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { gqlRequest } from '../../graphql/client';
import { type RecentErrorsData, RecentErrorsQuery, type UsageVariables } from '../../graphql/documents';
import { downloadCsv, toCsv } from '../../lib/csv';
import { Empty, ErrorState, Loading } from '../States';
import { RecentErrors } from './RecentErrors';

const PAGE = 10;
/** The export reads the period's errors 100 at a time (the API's page size), up to this many. */
const EXPORT_PAGE = 100;
const EXPORT_MAX = 10_000;

/** Every error of the period (up to EXPORT_MAX), newest first, as CSV. */
async function exportErrors(variables: UsageVariables): Promise<number> {
  const rows: (string | number | null)[][] = [];
  let after: string | null = null;
  do {
    const page: RecentErrorsData = await gqlRequest(RecentErrorsQuery, {
      ...variables,
      first: EXPORT_PAGE,
      after,
    });
    const { edges, pageInfo } = page.usage.recentErrors;
    for (const { node } of edges) {
      rows.push([
        node.occurredAt,
        node.status,
        node.code,
        node.method,
        node.path,
        node.message,
        node.maskedKey,
        node.requestId,
      ]);
    }
    after = pageInfo.hasNextPage ? pageInfo.endCursor : null;
  } while (after !== null && rows.length < EXPORT_MAX);
  const header = ['occurred_at', 'status', 'code', 'method', 'path', 'message', 'key', 'request_id'];
  downloadCsv(`tessera-errors-${variables.period.toLowerCase()}.csv`, toCsv(header, rows));
  return rows.length;
}

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
  const [exporting, setExporting] = useState<'idle' | 'busy' | string>('idle');
  const onExport = () => {
    setExporting('busy');
    exportErrors(variables).then(
      (n) => setExporting(`Downloaded ${n.toLocaleString()} errors.`),
      (err: Error) => setExporting(`Export failed: ${err.message}`),
    );
  };
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
    <>
      <div className="section-head">
        <p className="muted" role="status">
          {exporting === 'idle' || exporting === 'busy' ? '' : exporting}
        </p>
        <button type="button" className="btn btn-small" onClick={onExport} disabled={exporting === 'busy'}>
          {exporting === 'busy' ? 'Preparing CSV…' : 'Download CSV'}
        </button>
      </div>
      <RecentErrors
        rows={rows}
        hasMore={errors.hasNextPage}
        loadingMore={errors.isFetchingNextPage}
        onMore={() => errors.fetchNextPage()}
      />
    </>
  );
}
