import { useId } from 'react';
import { percent } from '../../lib/format';

export interface StatCardProps {
  label: string;
  value: string;
  /**
   * Change against the previous period: relative (0.12 = +12 %) or in percentage points (changeUnit "points");
   * null when there is nothing to compare; undefined for figures that have no previous period.
   */
  change: number | null | undefined;
  changeUnit?: 'relative' | 'points';
  /** Whether a rise is good news (requests) or bad news (latency); colours the change. */
  better: 'up' | 'down' | 'neither';
  hint?: string | undefined;
}

/** One headline number of the overview with its change against the previous period. */
export function StatCard({ label, value, change, changeUnit = 'relative', better, hint }: StatCardProps) {
  const direction =
    change === null || change === undefined || Math.abs(change) < 0.0005
      ? 'flat'
      : change > 0
        ? 'up'
        : 'down';
  const tone = direction === 'flat' || better === 'neither' ? 'flat' : direction === better ? 'good' : 'bad';
  const arrow = direction === 'up' ? '▲' : direction === 'down' ? '▼' : '';
  const changeText =
    change === undefined
      ? null
      : change === null
        ? 'No previous data'
        : direction === 'flat'
          ? 'No change vs previous period'
          : `${arrow} ${changeUnit === 'points' ? `${(Math.abs(change) * 100).toFixed(1)} pts` : percent(Math.abs(change))} vs previous period`;
  const hintId = useId();
  return (
    // The hint says what the figure counts: read with the card's name, as its description.
    <article className="card stat" aria-label={label} aria-describedby={hint ? hintId : undefined}>
      <h3 className="stat-label">{label}</h3>
      <p className="stat-value">{value}</p>
      {changeText && (
        <p className={`delta delta-${tone}`}>
          {direction !== 'flat' && <span className="sr-only">{direction === 'up' ? 'Up' : 'Down'} </span>}
          {changeText}
        </p>
      )}
      {hint && (
        <p className="muted" id={hintId}>
          {hint}
        </p>
      )}
    </article>
  );
}
