import { Axes } from './Axes';
import { Legend, type Series } from './StackedBars';
import { CHART, niceMax } from './scale';

/**
 * One line per series through the buckets that have a value; a bucket without requests (null) has no latency,
 * so the line joins its neighbours over it rather than dropping to zero. Every value also gets a dot, so that a
 * lone one is seen.
 */
export function Lines({
  title,
  series,
  labels,
  values,
  formatY,
}: {
  title: string;
  series: Series[];
  labels: string[];
  /** values[seriesIndex][bucket] */
  values: (number | null)[][];
  formatY: (v: number) => string;
}) {
  const { width, height, left, right, top, bottom } = CHART;
  const max = niceMax(Math.max(0, ...values.flat().map((v) => v ?? 0)));
  const plotH = height - top - bottom;
  const step = labels.length > 0 ? (width - left - right) / labels.length : 0;
  const point = (v: number, i: number) => `${left + step * (i + 0.5)},${top + plotH * (1 - v / max)}`;
  return (
    <figure className="chart">
      <figcaption>{title}</figcaption>
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={title}>
        <Axes max={max} labels={labels} formatY={formatY} />
        {series.map((s, si) => {
          const row = values[si] ?? [];
          const pts = row.flatMap((v, i) => (v === null ? [] : [point(v, i)]));
          return (
            <g key={s.key} stroke={s.color} fill={s.color}>
              {pts.length > 1 && <polyline points={pts.join(' ')} fill="none" strokeWidth={2} />}
              {pts.map((p) => (
                <circle key={p} cx={p.split(',')[0]} cy={p.split(',')[1]} r={2} />
              ))}
            </g>
          );
        })}
      </svg>
      <Legend series={series} />
    </figure>
  );
}
