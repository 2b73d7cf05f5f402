import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { EndpointTable } from '../components/overview/EndpointTable';
import { FirstCall } from '../components/overview/FirstCall';
import { RecentErrorsSection } from '../components/overview/RecentErrorsSection';
import { StatCard } from '../components/overview/StatCard';
import { UsageCharts } from '../components/overview/UsageCharts';
import { ErrorState, Loading } from '../components/States';
import { Toggle } from '../components/Toggle';
import { gqlRequest } from '../graphql/client';
import { type KeyMode, type OverviewData, OverviewQuery, type UsagePeriod } from '../graphql/documents';
import { downloadCsv, toCsv } from '../lib/csv';
import { abbreviate, duration, percent } from '../lib/format';

/** How often the open overview refreshes itself (usage is written in batches about every second). */
export const REFRESH_MS = 15_000;

const PERIODS = [
  { value: 'LAST_1H', label: '1 h' },
  { value: 'LAST_24H', label: '24 h' },
  { value: 'LAST_7D', label: '7 d' },
  { value: 'LAST_30D', label: '30 d' },
] as const;
const MODES = [
  { value: 'ALL', label: 'All' },
  { value: 'LIVE', label: 'Live' },
  { value: 'TEST', label: 'Test' },
] as const;

export function OverviewPage() {
  const [period, setPeriod] = useState<UsagePeriod>('LAST_24H');
  const [modeChoice, setModeChoice] = useState<KeyMode | 'ALL'>('ALL');
  const variables = { period, mode: modeChoice === 'ALL' ? null : modeChoice };
  const overview = useQuery({
    queryKey: ['graphql', 'overview', variables],
    queryFn: ({ signal }) => gqlRequest(OverviewQuery, variables, signal),
    refetchInterval: REFRESH_MS,
    // Opening the page always shows fresh numbers, even right after a visit.
    staleTime: 0,
    placeholderData: keepPreviousData,
  });

  return (
    <section aria-labelledby="overview-title">
      <div className="toolbar">
        <h1 id="overview-title">Overview</h1>
        <div className="toolbar-controls">
          <Toggle label="Period" options={PERIODS} value={period} onChange={setPeriod} />
          <Toggle label="Mode" options={MODES} value={modeChoice} onChange={setModeChoice} />
        </div>
      </div>
      {overview.isPending ? (
        <Loading label="Loading usage" />
      ) : overview.isError ? (
        <ErrorState message={overview.error.message} onRetry={() => overview.refetch()} />
      ) : (
        <OverviewBody data={overview.data.usage} variables={variables} stale={overview.isPlaceholderData} />
      )}
    </section>
  );
}

type Usage = OverviewData['usage'];

function OverviewBody({
  data,
  variables,
  stale,
}: {
  data: Usage;
  variables: { period: UsagePeriod; mode: KeyMode | null };
  stale: boolean;
}) {
  const s = data.summary;
  const spanMs = new Date(data.to).getTime() - new Date(data.from).getTime();
  const noTraffic = s.totalRequests === 0 && s.previous.totalRequests === 0;
  return (
    <div aria-busy={stale} className={stale ? 'is-stale' : undefined}>
      <div className="card-grid stats">
        <StatCard
          label="Total requests"
          value={abbreviate(s.totalRequests)}
          change={s.change.totalRequests}
          better="up"
        />
        <StatCard
          label="Success rate"
          value={percent(s.successRate)}
          change={s.change.successRate}
          changeUnit="points"
          better="up"
        />
        <StatCard
          label="Average latency"
          value={duration(s.averageLatencyMs)}
          change={s.change.averageLatencyMs}
          better="down"
          hint={s.p95LatencyMs === null ? undefined : `p95 ${duration(s.p95LatencyMs)}`}
        />
        <StatCard
          label="Total tokens"
          value={abbreviate(s.totalTokens)}
          change={s.change.totalTokens}
          better="neither"
        />
        <StatCard
          label="Tokens remaining"
          value={abbreviate(s.tokensRemaining)}
          change={undefined}
          better="up"
          hint="Left in this month's allowance (live keys only)."
        />
      </div>
      {noTraffic ? (
        <FirstCall mode={variables.mode === 'LIVE' ? 'live' : 'test'} />
      ) : (
        <>
          <UsageCharts points={data.timeseries} spanMs={spanMs} />
          <div className="section-head">
            <h2>Endpoints</h2>
            {data.endpoints.length > 0 && (
              <button
                type="button"
                className="btn btn-small"
                onClick={() => exportEndpoints(data, variables)}
              >
                Download CSV
              </button>
            )}
          </div>
          {data.endpoints.length === 0 ? (
            <p className="muted">No requests in this period.</p>
          ) : (
            <EndpointTable rows={data.endpoints.map((e) => ({ ...e, avgLatencyMs: e.averageLatencyMs }))} />
          )}
          <h2 id="recent-errors-title">Recent errors</h2>
          <RecentErrorsSection variables={variables} refetchMs={REFRESH_MS} />
        </>
      )}
    </div>
  );
}

/** The endpoint table as the page shows it, one row an endpoint, as a CSV file. */
function exportEndpoints(data: Usage, variables: { period: UsagePeriod; mode: KeyMode | null }): void {
  const rows = [...data.endpoints]
    .sort((a, b) => b.requests - a.requests)
    .map((e) => [e.method, e.path, e.requests, e.averageLatencyMs, e.successRate, e.tokens]);
  const csv = toCsv(['method', 'path', 'requests', 'average_latency_ms', 'success_rate', 'tokens'], rows);
  downloadCsv(
    `tessera-endpoints-${variables.period.toLowerCase()}-${(variables.mode ?? 'all').toLowerCase()}.csv`,
    csv,
  );
}
