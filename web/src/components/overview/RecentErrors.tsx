import { relativeTime } from '../../lib/format';
import { ScrollRegion } from '../ScrollRegion';

export interface ErrorGroupRow {
  id: string;
  status: number;
  method: string;
  path: string;
  message: string;
  /** The deployment (or provider) that failed; null when no model was called. */
  deployment: string | null;
  count: number;
  lastSeen: string;
  maskedKey: string | null;
}

/** The period's failures, identical ones as one row with their count and when the latest was seen. */
export function RecentErrors({
  rows,
  now = new Date(),
  hasMore,
  onMore,
}: {
  rows: ErrorGroupRow[];
  now?: Date;
  hasMore: boolean;
  onMore: () => void;
}) {
  return (
    <>
      <ScrollRegion label="Recent errors">
        <table className="stack">
          <caption className="sr-only">Recent errors</caption>
          <thead>
            <tr>
              <th scope="col">Status</th>
              <th scope="col">Endpoint</th>
              <th scope="col">Message</th>
              <th scope="col">Deployment</th>
              <th scope="col" className="num">
                Count
              </th>
              <th scope="col">Last seen</th>
              <th scope="col">Key</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((e) => (
              <tr key={e.id}>
                <td data-label="Status">
                  <span className={`status status-${Math.floor(e.status / 100)}xx`}>{e.status}</span>
                </td>
                <td data-label="Endpoint">
                  <span className="method">{e.method}</span> <code>{e.path}</code>
                </td>
                <td className="message" data-label="Message">
                  {e.message}
                </td>
                <td data-label="Deployment">{e.deployment ? <code>{e.deployment}</code> : '—'}</td>
                <td className="num" data-label="Count">
                  {e.count.toLocaleString()}
                </td>
                <td data-label="Last seen">
                  <time dateTime={e.lastSeen} title={new Date(e.lastSeen).toLocaleString()}>
                    {relativeTime(e.lastSeen, now)}
                  </time>
                </td>
                <td data-label="Key">{e.maskedKey ? <code>{e.maskedKey}</code> : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollRegion>
      {hasMore && (
        <button type="button" className="btn" onClick={onMore}>
          Show more errors
        </button>
      )}
    </>
  );
}
