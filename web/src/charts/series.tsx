/**
 * How a series is told apart without its colour: bars get a fill pattern, lines a marker shape and a dash.
 * Every colour is at least 3:1 against white (WCAG 1.4.11), and no two series share a pattern or a marker.
 */
export type Pattern = 'solid' | 'stripes' | 'dots' | 'crosshatch';
export type Marker = 'circle' | 'square';

export interface Series {
  key: string;
  label: string;
  color: string;
  /** Fill of its bars (default solid). */
  pattern?: Pattern;
  /** Shape of its points and whether its line is dashed (default circle, solid line). */
  marker?: Marker;
  dashed?: boolean;
}

/** A chart's own id prefix plus the series key: patterns are defined per SVG, so ids must not collide. */
export function patternId(chartId: string, key: string): string {
  return `${chartId}-${key}`.replace(/[^A-Za-z0-9_-]/g, '_');
}

/** The series colour as background with white marks on top; drawn with paths only (no rects) so that bars stay the chart's only rects. */
export function PatternDef({ id, color, pattern }: { id: string; color: string; pattern: Pattern }) {
  const marks =
    pattern === 'stripes'
      ? 'M-1,1 l2,-2 M0,6 l6,-6 M5,7 l2,-2'
      : pattern === 'crosshatch'
        ? 'M0,0 L6,6 M6,0 L0,6'
        : pattern === 'dots'
          ? 'M1.5,1.5 h1.2 v1.2 h-1.2 z M4.5,4.5 h1.2 v1.2 h-1.2 z'
          : '';
  return (
    <pattern id={id} width={6} height={6} patternUnits="userSpaceOnUse">
      <path d="M0,0 H6 V6 H0 Z" fill={color} />
      {marks && (
        <path
          d={marks}
          stroke="#fff"
          strokeWidth={pattern === 'dots' ? 0.6 : 1.4}
          fill={pattern === 'dots' ? '#fff' : 'none'}
        />
      )}
    </pattern>
  );
}

export function fillOf(chartId: string, s: Series): string {
  return !s.pattern || s.pattern === 'solid' ? s.color : `url(#${patternId(chartId, s.key)})`;
}

/** A point of a line series in its marker's shape. */
export function MarkerShape({ marker = 'circle', x, y }: { marker?: Marker; x: number; y: number }) {
  return marker === 'square' ? (
    <path d={`M${x - 2.5},${y - 2.5} h5 v5 h-5 z`} />
  ) : (
    <circle cx={x} cy={y} r={2.5} />
  );
}

/** The key under a chart: each series' swatch (pattern, or line with its marker) and its name. */
export function Legend({ series, kind }: { series: Series[]; kind: 'bars' | 'lines' }) {
  return (
    <ul className="legend">
      {series.map((s) => (
        <li key={s.key}>
          <svg className="swatch" viewBox="0 0 18 12" aria-hidden="true" focusable="false">
            {kind === 'bars' ? (
              <>
                {s.pattern && s.pattern !== 'solid' && (
                  <defs>
                    <PatternDef id={patternId('legend', s.key)} color={s.color} pattern={s.pattern} />
                  </defs>
                )}
                <path d="M1,1 H17 V11 H1 Z" fill={fillOf('legend', s)} />
              </>
            ) : (
              <g stroke={s.color} fill={s.color}>
                <path d="M0,6 H18" strokeWidth={2} strokeDasharray={s.dashed ? '4 2' : undefined} />
                <MarkerShape marker={s.marker} x={9} y={6} />
              </g>
            )}
          </svg>
          {s.label}
        </li>
      ))}
    </ul>
  );
}

/**
 * The chart's numbers as a table for screen readers (the SVG itself is one image with a summary): one row a
 * bucket, one column a series.
 */
export function ChartTable({
  title,
  labels,
  series,
  cell,
}: {
  title: string;
  labels: string[];
  series: Series[];
  cell: (bucket: number, series: number) => string;
}) {
  return (
    // The wrapper hides it: a table box ignores the width and overflow that visually hide other elements.
    <div className="sr-only">
      <table>
        <caption>{title}</caption>
        <thead>
          <tr>
            <th scope="col">Time</th>
            {series.map((s) => (
              <th key={s.key} scope="col">
                {s.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {labels.map((label, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: buckets are positional (labels can repeat)
            <tr key={i}>
              <th scope="row">{label}</th>
              {series.map((s, si) => (
                <td key={s.key}>{cell(i, si)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
