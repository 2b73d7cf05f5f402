import { CHART, tickIndexes } from './scale';

/** Horizontal grid lines with y labels, and x labels under chosen buckets. */
export function Axes({
  max,
  labels,
  formatY,
}: {
  max: number;
  labels: string[];
  formatY: (v: number) => string;
}) {
  const { width, height, left, right, top, bottom } = CHART;
  const plotH = height - top - bottom;
  const plotW = width - left - right;
  const step = labels.length > 0 ? plotW / labels.length : plotW;
  return (
    <g className="axes">
      {[0, 0.5, 1].map((f) => {
        const y = top + plotH * (1 - f);
        return (
          <g key={f}>
            <line x1={left} x2={width - right} y1={y} y2={y} className="grid" />
            <text x={left - 6} y={y + 4} textAnchor="end">
              {formatY(max * f)}
            </text>
          </g>
        );
      })}
      {tickIndexes(labels.length, (labels[0]?.length ?? 0) > 8 ? 3 : 4).map((i) => {
        // The outer labels hug the plot's edges so they are not cut off by the viewBox.
        const edge = i === 0 ? 'start' : i === labels.length - 1 ? 'end' : 'middle';
        const x = edge === 'start' ? left : edge === 'end' ? width - right : left + step * (i + 0.5);
        return (
          <text key={i} x={x} y={height - 6} textAnchor={edge}>
            {labels[i]}
          </text>
        );
      })}
    </g>
  );
}
