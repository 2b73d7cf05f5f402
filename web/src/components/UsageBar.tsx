import { percent } from '../lib/format';

/** A meter of `used` against `limit`; turns amber past 80 % and red past 95 %. */
export function UsageBar({
  used,
  limit,
  label = 'Token allowance used',
}: {
  used: number;
  limit: number;
  label?: string;
}) {
  const ratio = limit > 0 ? Math.min(1, used / limit) : 1;
  const tone = ratio >= 0.95 ? 'danger' : ratio >= 0.8 ? 'warn' : 'ok';
  return (
    <div className="usage-bar">
      <meter className="sr-only" min={0} max={limit} value={Math.min(used, limit)} aria-label={label} />
      <div className="usage-track" aria-hidden="true">
        <div className={`usage-fill usage-${tone}`} style={{ width: `${ratio * 100}%` }} />
      </div>
      <span className="usage-label">{percent(ratio)} used</span>
    </div>
  );
}
