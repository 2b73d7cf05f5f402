import { Axes } from './Axes';
import { Legend, type Series } from './StackedBars';
import { CHART, niceMax } from './scale';

/** One line per series over the buckets; a null value breaks the line (no requests in that bucket). */
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
          const segments: string[][] = [[]];
          row.forEach((v, i) => {
            if (v === null) segments.push([]);
            else segments[segments.length - 1]?.push(point(v, i));
          });
          return (
            <g key={s.key} stroke={s.color} fill={s.color}>
              {segments.map((pts) =>
                pts.length > 1 ? (
                  <polyline key={pts[0]} points={pts.join(' ')} fill="none" strokeWidth={2} />
                ) : pts[0] ? (
                  <circle key={pts[0]} cx={pts[0].split(',')[0]} cy={pts[0].split(',')[1]} r={2.5} />
                ) : null,
              )}
            </g>
          );
        })}
      </svg>
      <Legend series={series} />
    </figure>
  );
}
