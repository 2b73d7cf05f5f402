import { percent } from '../../lib/format';

export interface StatCardProps {
  label: string;
  value: string;
  /** Relative change against the previous period (0.12 = +12 %), or null when there is nothing to compare. */
  change: number | null;
  /** Whether a rise is good news (requests) or bad news (latency); colours the change. */
  better: 'up' | 'down' | 'neither';
  hint?: string | undefined;
}

/** One headline number of the overview with its change against the previous period. */
export function StatCard({ label, value, change, better, hint }: StatCardProps) {
  const direction = change === null || Math.abs(change) < 0.0005 ? 'flat' : change > 0 ? 'up' : 'down';
  const tone = direction === 'flat' || better === 'neither' ? 'flat' : direction === better ? 'good' : 'bad';
  const arrow = direction === 'up' ? '▲' : direction === 'down' ? '▼' : '';
  const changeText =
    change === null
      ? 'No previous data'
      : direction === 'flat'
        ? 'No change vs previous period'
        : `${arrow} ${percent(Math.abs(change))} vs previous period`;
  return (
    <article className="card stat" aria-label={label}>
      <h3 className="stat-label">{label}</h3>
      <p className="stat-value">{value}</p>
      <p className={`delta delta-${tone}`}>
        {direction !== 'flat' && <span className="sr-only">{direction === 'up' ? 'Up' : 'Down'} </span>}
        {changeText}
      </p>
      {hint && <p className="muted">{hint}</p>}
    </article>
  );
}
