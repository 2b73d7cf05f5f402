import { Lines } from '../../charts/Lines';
import { StackedBars } from '../../charts/StackedBars';
import { bucketLabel } from '../../charts/scale';
import type { Series } from '../../charts/series';
import type { UsagePointData } from '../../graphql/documents';
import { abbreviate, duration } from '../../lib/format';

// Each class has its own pattern, so that the stack reads without telling the colours apart.
const CODE_SERIES: Series[] = [
  { key: '2xx', label: '2xx success', color: 'var(--c2xx)', pattern: 'solid' },
  { key: '4xx', label: '4xx client error', color: 'var(--c4xx)', pattern: 'stripes' },
  { key: '429', label: '429 rate limited', color: 'var(--c429)', pattern: 'dots' },
  { key: '5xx', label: '5xx server error', color: 'var(--c5xx)', pattern: 'crosshatch' },
];

/** Request volume, response codes by class and latency (average and p95) over the period's buckets. */
export function UsageCharts({ points, spanMs }: { points: UsagePointData[]; spanMs: number }) {
  const labels = points.map((p) => bucketLabel(p.start, spanMs));
  return (
    <div className="chart-grid">
      <StackedBars
        title="Requests"
        series={[{ key: 'requests', label: 'Requests', color: 'var(--c2xx)' }]}
        labels={labels}
        values={points.map((p) => [p.requests])}
        formatY={abbreviate}
      />
      <StackedBars
        title="Response codes"
        series={CODE_SERIES}
        labels={labels}
        values={points.map((p) => [p.status2xx, p.status4xx, p.status429, p.status5xx])}
        formatY={abbreviate}
      />
      <Lines
        title="Latency"
        series={[
          { key: 'avg', label: 'Average', color: 'var(--c2xx)', marker: 'circle' },
          { key: 'p95', label: 'p95', color: 'var(--c429)', marker: 'square', dashed: true },
        ]}
        labels={labels}
        values={[points.map((p) => p.averageLatencyMs), points.map((p) => p.p95LatencyMs)]}
        formatY={duration}
      />
    </div>
  );
}
