import { Axes } from './Axes';
import { CHART, niceMax } from './scale';
import { ChartTable, Legend, MarkerShape, type Series } from './series';

/**
 * One line per series through the buckets that have a value; a bucket without requests (null) has no latency,
 * so the line joins its neighbours over it rather than dropping to zero. Every value also gets a marker, so that
 * a lone one is seen; series differ by marker shape and dash as well as colour, and the numbers are also in a
 * table for screen readers.
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
  const point = (v: number, i: number) => ({ x: left + step * (i + 0.5), y: top + plotH * (1 - v / max) });
  const peaks = series.map((s, si) => {
    const known = (values[si] ?? []).filter((v): v is number => v !== null);
    return known.length ? `${s.label} up to ${formatY(Math.max(...known))}` : `${s.label}: no data`;
  });
  return (
    <figure className="chart">
      <figcaption>{title}</figcaption>
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`${title}: ${peaks.join(', ')}`}>
        <Axes max={max} labels={labels} formatY={formatY} />
        {series.map((s, si) => {
          const row = values[si] ?? [];
          const pts = row.flatMap((v, i) => (v === null ? [] : [point(v, i)]));
          return (
            <g key={s.key} stroke={s.color} fill={s.color}>
              {pts.length > 1 && (
                <polyline
                  points={pts.map((p) => `${p.x},${p.y}`).join(' ')}
                  fill="none"
                  strokeWidth={2}
                  strokeDasharray={s.dashed ? '5 3' : undefined}
                />
              )}
              {pts.map((p) => (
                <MarkerShape key={`${p.x},${p.y}`} marker={s.marker} x={p.x} y={p.y} />
              ))}
            </g>
          );
        })}
      </svg>
      <Legend series={series} kind="lines" />
      <ChartTable
        title={title}
        labels={labels}
        series={series}
        cell={(bucket, s) => {
          const v = values[s]?.[bucket];
          return v === null || v === undefined ? 'no requests' : formatY(v);
        }}
      />
    </figure>
  );
}
