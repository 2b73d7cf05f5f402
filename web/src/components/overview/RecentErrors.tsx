import { relativeTime } from '../../lib/format';

export interface ErrorRow {
  id: string;
  status: number;
  method: string;
  path: string;
  message: string;
  at: string;
  maskedKey: string | null;
}

/** The newest failed requests; paging is the caller's (cursor based). */
export function RecentErrors({
  rows,
  now = new Date(),
  hasMore,
  loadingMore,
  onMore,
}: {
  rows: ErrorRow[];
  now?: Date;
  hasMore: boolean;
  loadingMore: boolean;
  onMore: () => void;
}) {
  return (
    <>
      <div className="table-wrap">
        <table>
          <caption className="sr-only">Recent errors</caption>
          <thead>
            <tr>
              <th scope="col">Status</th>
              <th scope="col">Endpoint</th>
              <th scope="col">Message</th>
              <th scope="col">When</th>
              <th scope="col">Key</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((e) => (
              <tr key={e.id}>
                <td>
                  <span className={`status status-${Math.floor(e.status / 100)}xx`}>{e.status}</span>
                </td>
                <td>
                  <span className="method">{e.method}</span> <code>{e.path}</code>
                </td>
                <td className="message">{e.message}</td>
                <td>
                  <time dateTime={e.at} title={new Date(e.at).toLocaleString()}>
                    {relativeTime(e.at, now)}
                  </time>
                </td>
                <td>{e.maskedKey ? <code>{e.maskedKey}</code> : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {hasMore && (
        <button type="button" className="btn" onClick={onMore} disabled={loadingMore}>
          {loadingMore ? 'Loading…' : 'Show older errors'}
        </button>
      )}
    </>
  );
}
