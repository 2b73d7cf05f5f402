import { abbreviate, duration, percent } from '../../lib/format';
import { ScrollRegion } from '../ScrollRegion';

export interface EndpointRow {
  method: string;
  path: string;
  requests: number;
  avgLatencyMs: number | null;
  successRate: number | null;
  tokens: number | null;
}

/** Per-endpoint usage for the period, busiest first. */
export function EndpointTable({ rows }: { rows: EndpointRow[] }) {
  const sorted = [...rows].sort((a, b) => b.requests - a.requests);
  return (
    <ScrollRegion label="Requests per endpoint">
      <table>
        <caption className="sr-only">Requests per endpoint</caption>
        <thead>
          <tr>
            <th scope="col">Endpoint</th>
            <th scope="col" className="num">
              Requests
            </th>
            <th scope="col" className="num">
              Avg latency
            </th>
            <th scope="col" className="num">
              Success
            </th>
            <th scope="col" className="num">
              Tokens
            </th>
          </tr>
        </thead>
        <tbody>
          {sorted.map((r) => (
            <tr key={`${r.method} ${r.path}`}>
              <th scope="row">
                <span className="method">{r.method}</span> <code>{r.path}</code>
              </th>
              <td className="num">{r.requests.toLocaleString()}</td>
              <td className="num">{duration(r.avgLatencyMs)}</td>
              <td className="num">{percent(r.successRate)}</td>
              <td className="num">
                {r.tokens === null ? <abbr title="not applicable">–</abbr> : abbreviate(r.tokens)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
