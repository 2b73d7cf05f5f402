import { abbreviate, duration, percent } from '../../lib/format';
import { notApplicable, type TrafficColumn, TrafficTable } from './TrafficTable';

export interface EndpointRow {
  method: string;
  path: string;
  requests: number;
  avgLatencyMs: number | null;
  successRate: number | null;
  tokens: number | null;
}

const COLUMNS: [TrafficColumn<EndpointRow>, ...TrafficColumn<EndpointRow>[]] = [
  {
    heading: 'Endpoint',
    cell: (r) => (
      <>
        <span className="method">{r.method}</span> <code>{r.path}</code>
      </>
    ),
  },
  { heading: 'Requests', numeric: true, cell: (r) => r.requests.toLocaleString() },
  { heading: 'Avg latency', numeric: true, cell: (r) => duration(r.avgLatencyMs) },
  { heading: 'Success', numeric: true, cell: (r) => percent(r.successRate) },
  {
    heading: 'Tokens',
    numeric: true,
    cell: (r) => (r.tokens === null ? notApplicable('not applicable') : abbreviate(r.tokens)),
  },
];

/** Per-endpoint usage for the period, busiest first. */
export function EndpointTable({ rows }: { rows: EndpointRow[] }) {
  const sorted = [...rows].sort((a, b) => b.requests - a.requests);
  return (
    <TrafficTable
      label="Requests per endpoint"
      columns={COLUMNS}
      rows={sorted}
      rowKey={(r) => `${r.method} ${r.path}`}
    />
  );
}
