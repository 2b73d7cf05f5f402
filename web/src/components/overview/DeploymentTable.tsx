import { abbreviate, duration, money, percent } from '../../lib/format';
import { notApplicable, type TrafficColumn, TrafficTable } from './TrafficTable';

export interface DeploymentRow {
  model: string;
  /** Who answered (`x-tessera-provider`); null: refused before any deployment was called. */
  deployment: string | null;
  requests: number;
  errors: number;
  successRate: number;
  p50LatencyMs: number | null;
  p95LatencyMs: number | null;
  tokens: number | null;
  costMicros: number | null;
}

const columns = (currency: string): [TrafficColumn<DeploymentRow>, ...TrafficColumn<DeploymentRow>[]] => [
  { heading: 'Model', cell: (r) => <code>{r.model}</code> },
  {
    heading: 'Deployment',
    cell: (r) =>
      r.deployment === null ? <span className="muted">not called</span> : <code>{r.deployment}</code>,
  },
  { heading: 'Requests', numeric: true, cell: (r) => r.requests.toLocaleString() },
  { heading: 'Errors', numeric: true, cell: (r) => r.errors.toLocaleString() },
  { heading: 'Success', numeric: true, cell: (r) => percent(r.successRate) },
  { heading: 'p50', numeric: true, cell: (r) => duration(r.p50LatencyMs) },
  { heading: 'p95', numeric: true, cell: (r) => duration(r.p95LatencyMs) },
  {
    heading: 'Tokens',
    numeric: true,
    cell: (r) => (r.tokens === null ? notApplicable('no usage reported') : abbreviate(r.tokens)),
  },
  {
    heading: 'Cost',
    numeric: true,
    cell: (r) => (r.costMicros === null ? notApplicable('no usage reported') : money(r.costMicros, currency)),
  },
];

/**
 * Traffic per model and the deployment that answered it over the period, busiest first, as the server orders
 * it: which upstream carries a routed model's calls, which one fails and which one is slow.
 */
export function DeploymentTable({
  rows,
  currency,
  truncated,
}: {
  rows: DeploymentRow[];
  currency: string;
  truncated: boolean;
}) {
  return (
    <>
      <TrafficTable
        label="Requests per deployment"
        columns={columns(currency)}
        rows={rows}
        rowKey={(r) => `${r.model}\u0000${r.deployment ?? ''}`}
      />
      {truncated && <p className="muted">The 100 busiest model and deployment pairs are shown.</p>}
    </>
  );
}
