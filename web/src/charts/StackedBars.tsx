import { Axes } from './Axes';
import { CHART, niceMax } from './scale';

export interface Series {
  key: string;
  label: string;
  color: string;
}

/** Bars per bucket, stacked by series (one series makes plain bars). Drawn in SVG: no chart library. */
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
                  <rect key={serie.key} x={x} y={y} width={barW} height={h} fill={serie.color}>
                    <title>{`${labels[i]}: ${v} ${serie.label}`}</title>
                  </rect>
                ) : null;
              })}
            </g>
          );
        })}
      </svg>
      {series.length > 1 && <Legend series={series} />}
    </figure>
  );
}

export function Legend({ series }: { series: Series[] }) {
  return (
    <ul className="legend">
      {series.map((s) => (
        <li key={s.key}>
          <span className="swatch" style={{ background: s.color }} aria-hidden="true" />
          {s.label}
        </li>
      ))}
    </ul>
  );
}
