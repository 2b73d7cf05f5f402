import { useId } from 'react';
import { Axes } from './Axes';
import { CHART, niceMax } from './scale';
import { ChartTable, fillOf, Legend, PatternDef, patternId, type Series } from './series';

/**
 * Bars per bucket, stacked by series (one series makes plain bars). Drawn in SVG: no chart library. Series
 * differ by fill pattern as well as colour; the numbers are also in a table for screen readers.
 */
export function StackedBars({
  title,
  series,
  labels,
  values,
  formatY = (v) => String(Math.round(v)),
}: {
  title: string;
  series: Series[];
  labels: string[];
  /** values[bucket][seriesIndex] */
  values: number[][];
  formatY?: (v: number) => string;
}) {
  const chartId = `bars${useId()}`;
  const { width, height, left, right, top, bottom } = CHART;
  const totals = values.map((row) => row.reduce((a, b) => a + b, 0));
  const max = niceMax(Math.max(0, ...totals));
  const plotH = height - top - bottom;
  const step = labels.length > 0 ? (width - left - right) / labels.length : 0;
  const barW = Math.max(1, step * 0.7);
  const sum = totals.reduce((a, b) => a + b, 0);
  return (
    <figure className="chart">
      <figcaption>{title}</figcaption>
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`${title}: ${sum} in total`}>
        <defs>
          {series.map((s) =>
            s.pattern && s.pattern !== 'solid' ? (
              <PatternDef key={s.key} id={patternId(chartId, s.key)} color={s.color} pattern={s.pattern} />
            ) : null,
          )}
        </defs>
        <Axes max={max} labels={labels} formatY={formatY} />
        {values.map((row, i) => {
          let y = top + plotH;
          const x = left + step * i + (step - barW) / 2;
          return (
            // biome-ignore lint/suspicious/noArrayIndexKey: buckets are positional
            <g key={i}>
              {row.map((v, s) => {
                const h = (v / max) * plotH;
                y -= h;
                const serie = series[s];
                return v > 0 && serie ? (
                  <rect key={serie.key} x={x} y={y} width={barW} height={h} fill={fillOf(chartId, serie)}>
                    <title>{`${labels[i]}: ${v} ${serie.label}`}</title>
                  </rect>
                ) : null;
              })}
            </g>
          );
        })}
      </svg>
      {series.length > 1 && <Legend series={series} kind="bars" />}
      <ChartTable
        title={title}
        labels={labels}
        series={series}
        cell={(bucket, s) => formatY(values[bucket]?.[s] ?? 0)}
      />
    </figure>
  );
}
