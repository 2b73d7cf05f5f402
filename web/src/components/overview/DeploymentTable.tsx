import { abbreviate, duration, money, percent } from '../../lib/format';
import { ScrollRegion } from '../ScrollRegion';

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

function notApplicable(title: string) {
  return <abbr title={title}>–</abbr>;
}

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
      <ScrollRegion label="Requests per deployment">
        <table>
          <caption className="sr-only">Requests per deployment</caption>
          <thead>
            <tr>
              <th scope="col">Model</th>
              <th scope="col">Deployment</th>
              <th scope="col" className="num">
                Requests
              </th>
              <th scope="col" className="num">
                Errors
              </th>
              <th scope="col" className="num">
                Success
              </th>
              <th scope="col" className="num">
                p50
              </th>
              <th scope="col" className="num">
                p95
              </th>
              <th scope="col" className="num">
                Tokens
              </th>
              <th scope="col" className="num">
                Cost
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={`${r.model}\u0000${r.deployment ?? ''}`}>
                <th scope="row">
                  <code>{r.model}</code>
                </th>
                <td>
                  {r.deployment === null ? (
                    <span className="muted">not called</span>
                  ) : (
                    <code>{r.deployment}</code>
                  )}
                </td>
                <td className="num">{r.requests.toLocaleString()}</td>
                <td className="num">{r.errors.toLocaleString()}</td>
                <td className="num">{percent(r.successRate)}</td>
                <td className="num">{duration(r.p50LatencyMs)}</td>
                <td className="num">{duration(r.p95LatencyMs)}</td>
                <td className="num">
                  {r.tokens === null ? notApplicable('no usage reported') : abbreviate(r.tokens)}
                </td>
                <td className="num">
                  {r.costMicros === null ? notApplicable('no usage reported') : money(r.costMicros, currency)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollRegion>
      {truncated && <p className="muted">The 100 busiest model and deployment pairs are shown.</p>}
    </>
  );
}
