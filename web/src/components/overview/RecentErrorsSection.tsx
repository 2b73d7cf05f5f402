import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { gqlRequest } from '../../graphql/client';
import {
  ErrorGroupsQuery,
  type RecentErrorsData,
  RecentErrorsQuery,
  type UsageVariables,
} from '../../graphql/documents';
import { downloadCsv, toCsv } from '../../lib/csv';
import { Empty, ErrorState, Loading } from '../States';
import { RecentErrors } from './RecentErrors';

/** Groups shown at first, and how many more a click adds (the API gives at most 100). */
const PAGE = 10;
const MAX_GROUPS = 100;
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
        node.deployment,
        node.maskedKey,
        node.requestId,
      ]);
    }
    after = pageInfo.hasNextPage ? pageInfo.endCursor : null;
  } while (after !== null && rows.length < EXPORT_MAX);
  const header = [
    'occurred_at',
    'status',
    'code',
    'method',
    'path',
    'message',
    'deployment',
    'key',
    'request_id',
  ];
  downloadCsv(`tessera-errors-${variables.period.toLowerCase()}.csv`, toCsv(header, rows));
  return rows.length;
}

/** The period's errors grouped when identical, refreshed with the rest of the overview; all of them as CSV. */
export function RecentErrorsSection({
  variables,
  refetchMs,
}: {
  variables: UsageVariables;
  refetchMs: number;
}) {
  const [shown, setShown] = useState(PAGE);
  const groups = useQuery({
    queryKey: ['graphql', 'errorGroups', variables, shown],
    queryFn: ({ signal }) => gqlRequest(ErrorGroupsQuery, { ...variables, first: shown }, signal),
    refetchInterval: refetchMs,
    placeholderData: keepPreviousData,
  });
  const [exporting, setExporting] = useState<'idle' | 'busy' | string>('idle');
  const onExport = () => {
    setExporting('busy');
    exportErrors(variables).then(
      (n) => setExporting(`Downloaded ${n.toLocaleString()} errors.`),
      (err: Error) => setExporting(`Export failed: ${err.message}`),
    );
  };
  if (groups.isPending) return <Loading label="Loading recent errors" />;
  if (groups.isError) return <ErrorState message={groups.error.message} onRetry={() => groups.refetch()} />;
  const list = groups.data.usage.errorGroups.groups;
  const rows = list.map((g) => ({
    id: `${g.status} ${g.method} ${g.path} ${g.code} ${g.message} ${g.deployment} ${g.maskedKey}`,
    status: g.status,
    method: g.method,
    path: g.path,
    message: g.message ?? g.code ?? 'No message',
    deployment: g.deployment,
    count: g.count,
    lastSeen: g.lastSeen,
    maskedKey: g.maskedKey,
  }));
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
        hasMore={list.length === shown && shown < MAX_GROUPS}
        onMore={() => setShown((n) => Math.min(MAX_GROUPS, n + PAGE * 2))}
      />
    </>
  );
}
