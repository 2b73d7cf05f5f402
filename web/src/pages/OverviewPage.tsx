import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { DeploymentTable } from '../components/overview/DeploymentTable';
import { EndpointTable } from '../components/overview/EndpointTable';
import { FirstCall } from '../components/overview/FirstCall';
import { RecentErrorsSection } from '../components/overview/RecentErrorsSection';
import { SampleDataNotice } from '../components/overview/SampleDataNotice';
import { StatCard } from '../components/overview/StatCard';
import { UsageCharts } from '../components/overview/UsageCharts';
import { ErrorState, Loading } from '../components/States';
import { Toggle } from '../components/Toggle';
import { gqlRequest } from '../graphql/client';
import {
  type KeyMode,
  KeyOptionsQuery,
  type OverviewData,
  OverviewQuery,
  type UsagePeriod,
  type UsageVariables,
} from '../graphql/documents';
import { downloadCsv, toCsv } from '../lib/csv';
import { abbreviate, duration, money, percent } from '../lib/format';
import { updateSearch, useSearch } from '../lib/router';

/** How often the open overview refreshes itself (usage is written in batches about every second). */
export const REFRESH_MS = 15_000;

const PERIODS = [
  { value: 'LAST_1H', label: '1 h', param: '1h' },
  { value: 'LAST_24H', label: '24 h', param: '24h' },
  { value: 'LAST_7D', label: '7 d', param: '7d' },
  { value: 'LAST_30D', label: '30 d', param: '30d' },
] as const;
const MODES = [
  { value: 'ALL', label: 'All', param: null },
  { value: 'LIVE', label: 'Live', param: 'live' },
  { value: 'TEST', label: 'Test', param: 'test' },
] as const;

/**
 * The view lives in the URL (`?period=7d&mode=live&key=key_…&endpoint=GET+/v1/models`), so that it survives a
 * reload and can be shared; anything unknown there falls back to the default view.
 */
function useOverviewView() {
  const search = useSearch();
  const period = PERIODS.find((p) => p.param === search.get('period'))?.value ?? 'LAST_24H';
  const modeChoice = MODES.find((m) => m.param !== null && m.param === search.get('mode'))?.value ?? 'ALL';
  const keyId = search.get('key') || null;
  const endpoint = search.get('endpoint') || null;
  const space = endpoint?.indexOf(' ') ?? -1;
  const variables: UsageVariables = {
    period,
    mode: modeChoice === 'ALL' ? null : modeChoice,
    keyId,
    method: endpoint && space > 0 ? endpoint.slice(0, space) : null,
    path: endpoint && space > 0 ? endpoint.slice(space + 1) : null,
  };
  return {
    period,
    modeChoice,
    keyId,
    endpoint: space > 0 ? endpoint : null,
    variables,
    setPeriod: (v: UsagePeriod) =>
      updateSearch({ period: PERIODS.find((p) => p.value === v)?.param ?? null }),
    setMode: (v: KeyMode | 'ALL') => updateSearch({ mode: MODES.find((m) => m.value === v)?.param ?? null }),
    setKey: (v: string | null) => updateSearch({ key: v }),
    setEndpoint: (v: string | null) => updateSearch({ endpoint: v }),
  };
}

export function OverviewPage() {
  const view = useOverviewView();
  const { period, modeChoice, variables } = view;
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
          <Toggle label="Period" options={PERIODS} value={period} onChange={view.setPeriod} />
          <Toggle label="Mode" options={MODES} value={modeChoice} onChange={view.setMode} />
        </div>
      </div>
      <SampleDataNotice />
      <Filters
        keyId={view.keyId}
        endpoint={view.endpoint}
        endpoints={overview.data?.usage.endpoints ?? []}
        onKey={view.setKey}
        onEndpoint={view.setEndpoint}
      />
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
  variables: UsageVariables;
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
          hint="Tokens billed by models; refused calls count 0."
        />
        <StatCard
          label="Spend"
          value={money(s.totalCostMicros, s.currency)}
          change={s.change.totalCostMicros}
          better="neither"
          hint="Tokens at each model's price on the day of the call; models without a price count 0."
        />
        <StatCard
          label="Cache hit rate"
          value={percent(s.cache.hitRate)}
          change={undefined}
          better="up"
          hint={`${abbreviate(s.cache.hits)} of ${abbreviate(s.cache.hits + s.cache.misses)} chat requests of keys with the response cache on answered from it; ${money(s.cache.savedMicros, s.currency)} saved.`}
        />
        <StatCard
          label="Saved by the cache"
          value={money(s.cache.savedMicros, s.currency)}
          change={undefined}
          better="up"
          hint="What the cached answers cost when a model made them; a hit costs nothing."
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
          <div className="section-head">
            <h2 id="deployments-title">Deployments</h2>
            {data.deployments.rows.length > 0 && (
              <button
                type="button"
                className="btn btn-small"
                onClick={() => exportDeployments(data, variables)}
              >
                Download CSV
              </button>
            )}
          </div>
          {data.deployments.rows.length === 0 ? (
            <p className="muted">No model calls in this period.</p>
          ) : (
            <DeploymentTable
              rows={data.deployments.rows}
              currency={s.currency}
              truncated={data.deployments.truncated}
            />
          )}
          <h2 id="recent-errors-title">Recent errors</h2>
          <RecentErrorsSection variables={variables} refetchMs={REFRESH_MS} />
        </>
      )}
    </div>
  );
}

/** The endpoint table as the page shows it, one row an endpoint, as a CSV file. */
function exportEndpoints(data: Usage, variables: UsageVariables): void {
  const rows = [...data.endpoints]
    .sort((a, b) => b.requests - a.requests)
    .map((e) => [
      e.method,
      e.path,
      e.requests,
      e.averageLatencyMs,
      e.successRate,
      e.tokens,
      e.costMicros === null ? null : e.costMicros / 1_000_000,
    ]);
  const csv = toCsv(
    [
      'method',
      'path',
      'requests',
      'average_latency_ms',
      'success_rate',
      'tokens',
      `cost_${data.summary.currency}`,
    ],
    rows,
  );
  downloadCsv(
    `tessera-endpoints-${variables.period.toLowerCase()}-${(variables.mode ?? 'all').toLowerCase()}.csv`,
    csv,
  );
}

/**
 * The Deployments panel as the page shows it (its period, mode, key and endpoint), one row a model and the
 * deployment that answered it, busiest first as the server orders them: requests, errors, latency, tokens and
 * the cost of each deployment.
 */
function exportDeployments(data: Usage, variables: UsageVariables): void {
  const rows = data.deployments.rows.map((d) => [
    d.model,
    d.deployment,
    d.requests,
    d.errors,
    d.successRate,
    d.p50LatencyMs,
    d.p95LatencyMs,
    d.tokens,
    d.costMicros === null ? null : d.costMicros / 1_000_000,
  ]);
  const csv = toCsv(
    [
      'model',
      'deployment',
      'requests',
      'errors',
      'success_rate',
      'p50_latency_ms',
      'p95_latency_ms',
      'tokens',
      `cost_${data.summary.currency}`,
    ],
    rows,
  );
  downloadCsv(
    `tessera-deployments-${variables.period.toLowerCase()}-${(variables.mode ?? 'all').toLowerCase()}.csv`,
    csv,
  );
}

/** Narrow the overview to one key or one endpoint; the choice is kept in the URL with the period and mode. */
function Filters({
  keyId,
  endpoint,
  endpoints,
  onKey,
  onEndpoint,
}: {
  keyId: string | null;
  endpoint: string | null;
  endpoints: OverviewData['usage']['endpoints'];
  onKey: (id: string | null) => void;
  onEndpoint: (endpoint: string | null) => void;
}) {
  const keys = useQuery({
    queryKey: ['graphql', 'keyOptions'],
    queryFn: ({ signal }) => gqlRequest(KeyOptionsQuery, {}, signal),
  });
  const endpointNames = [
    ...new Set([...endpoints.map((e) => `${e.method} ${e.path}`), ...(endpoint ? [endpoint] : [])]),
  ];
  return (
    <div className="filters">
      <label>
        Key{' '}
        <select value={keyId ?? ''} onChange={(e) => onKey(e.target.value || null)}>
          <option value="">All keys</option>
          {(keys.data?.apiKeys ?? []).map((k) => (
            <option key={k.id} value={k.id}>
              {k.name} ({k.masked})
            </option>
          ))}
          {keyId && !keys.data?.apiKeys.some((k) => k.id === keyId) && <option value={keyId}>{keyId}</option>}
        </select>
      </label>
      <label>
        Endpoint{' '}
        <select value={endpoint ?? ''} onChange={(e) => onEndpoint(e.target.value || null)}>
          <option value="">All endpoints</option>
          {endpointNames.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}
