import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Lines } from '../../charts/Lines';
import { StackedBars } from '../../charts/StackedBars';
import { DeploymentTable } from './DeploymentTable';
import { EndpointTable } from './EndpointTable';
import { RecentErrors } from './RecentErrors';
import { StatCard } from './StatCard';

afterEach(cleanup);

describe('StatCard', () => {
  it('shows the value and colours a rise by whether it is good news', () => {
    render(<StatCard label="Total requests" value="1.2K" change={0.25} better="up" />);
    const card = screen.getByRole('article', { name: 'Total requests' });
    expect(within(card).getByText('1.2K')).toBeTruthy();
    const delta = within(card).getByText(/25% vs previous period/);
    expect(delta.className).toContain('delta-good');
    expect(delta.textContent).toContain('Up');
  });

  it('marks rising latency as bad and says when there is nothing to compare', () => {
    render(
      <>
        <StatCard label="Average latency" value="120 ms" change={0.5} better="down" />
        <StatCard label="Tokens remaining" value="100K" change={null} better="neither" />
      </>,
    );
    expect(screen.getByText(/50% vs previous period/).className).toContain('delta-bad');
    const remaining = screen.getByRole('article', { name: 'Tokens remaining' });
    expect(within(remaining).getByText('No previous data').className).toContain('delta-flat');
  });
});

describe('DeploymentTable', () => {
  it('shows each model and deployment in the order given, with its errors, percentiles and cost', () => {
    render(
      <DeploymentTable
        currency="USD"
        truncated={false}
        rows={[
          {
            model: 'gpt-4o',
            deployment: 'azure-east',
            requests: 1200,
            errors: 12,
            successRate: 0.99,
            p50LatencyMs: 420,
            p95LatencyMs: 1900,
            tokens: 96_000,
            costMicros: 1_250_000,
          },
          {
            model: 'gpt-4o',
            deployment: null,
            requests: 4,
            errors: 4,
            successRate: 0,
            p50LatencyMs: 2,
            p95LatencyMs: 3,
            tokens: null,
            costMicros: null,
          },
        ]}
      />,
    );
    const table = screen.getByRole('table', { name: 'Requests per deployment' });
    const rows = within(table).getAllByRole('row').slice(1);
    const first = within(rows[0] as HTMLElement);
    expect(first.getByText('azure-east')).toBeTruthy();
    expect(first.getByText('1,200')).toBeTruthy();
    expect(first.getByText('420 ms')).toBeTruthy();
    expect(first.getByText('1.90 s')).toBeTruthy();
    expect(first.getByText('96K')).toBeTruthy();
    expect(rows[0]?.textContent).toMatch(/\$1\.25/);
    const second = within(rows[1] as HTMLElement);
    expect(second.getByText('not called')).toBeTruthy();
    expect(second.getAllByTitle('no usage reported')).toHaveLength(2);
    expect(screen.queryByText(/busiest model and deployment pairs/)).toBeNull();
  });

  it('says when the quietest pairs were left out', () => {
    render(<DeploymentTable currency="USD" truncated={true} rows={[]} />);
    expect(screen.getByText(/The 100 busiest model and deployment pairs are shown/)).toBeTruthy();
  });
});

describe('EndpointTable', () => {
  it('lists endpoints busiest first, with a dash where tokens do not apply', () => {
    render(
      <EndpointTable
        rows={[
          { method: 'GET', path: '/v1/models', requests: 3, avgLatencyMs: 4, successRate: 1, tokens: null },
          {
            method: 'POST',
            path: '/v1/chat/completions',
            requests: 1500,
            avgLatencyMs: 1530,
            successRate: 0.987,
            tokens: 2_500_000,
          },
        ]}
      />,
    );
    const rows = screen.getAllByRole('row').slice(1);
    expect(rows[0]?.textContent).toContain('/v1/chat/completions');
    expect(within(rows[0] as HTMLElement).getByText('1,500')).toBeTruthy();
    expect(within(rows[0] as HTMLElement).getByText('1.53 s')).toBeTruthy();
    expect(within(rows[0] as HTMLElement).getByText('98.7%')).toBeTruthy();
    expect(within(rows[0] as HTMLElement).getByText('2.5M')).toBeTruthy();
    expect(within(rows[1] as HTMLElement).getByTitle('not applicable')).toBeTruthy();
  });
});

describe('RecentErrors', () => {
  it('shows each group with status, path, message, deployment, count, when last seen and masked key; more on demand', async () => {
    const onMore = vi.fn();
    render(
      <RecentErrors
        now={new Date('2026-01-10T12:00:00Z')}
        rows={[
          {
            id: 'e1',
            status: 404,
            method: 'GET',
            path: '/v1/models/:id',
            message: "The model 'nope' does not exist",
            deployment: 'azure-east',
            count: 1234,
            lastSeen: '2026-01-10T11:57:00Z',
            maskedKey: 'sk_test_…AbCd',
          },
        ]}
        hasMore
        onMore={onMore}
      />,
    );
    const row = screen.getAllByRole('row')[1] as HTMLElement;
    expect(within(row).getByText('404')).toBeTruthy();
    expect(within(row).getByText('/v1/models/:id')).toBeTruthy();
    expect(within(row).getByText('azure-east')).toBeTruthy();
    expect(within(row).getByText('1,234')).toBeTruthy();
    expect(within(row).getByText('3 min ago')).toBeTruthy();
    expect(within(row).getByText('sk_test_…AbCd')).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Show more errors' }));
    expect(onMore).toHaveBeenCalledOnce();
  });
});

describe('charts', () => {
  it('stack bars per bucket with a height proportional to the value', () => {
    const { container } = render(
      <StackedBars
        title="Response codes"
        labels={['a', 'b']}
        series={[
          { key: 'ok', label: '2xx', color: 'blue' },
          { key: 'err', label: '4xx', color: 'orange' },
        ]}
        values={[
          [10, 0],
          [5, 5],
        ]}
      />,
    );
    expect(screen.getByRole('img', { name: 'Response codes: 20 in total' })).toBeTruthy();
    const rects = [...container.querySelectorAll('svg[role="img"] rect')];
    expect(rects).toHaveLength(3);
    const heights = rects.map((r) => Number(r.getAttribute('height')));
    expect(heights[0]).toBeCloseTo((heights[1] ?? 0) * 2);
    expect(heights[1]).toBeCloseTo(heights[2] ?? 0);
    expect(within(screen.getByRole('list')).getByText('4xx')).toBeTruthy();
  });

  it('tell series apart by pattern as well as colour, and give the numbers as a table', () => {
    const { container } = render(
      <StackedBars
        title="Response codes"
        labels={['10:00', '11:00']}
        series={[
          { key: 'ok', label: '2xx', color: 'blue', pattern: 'solid' },
          { key: 'err', label: '4xx', color: 'orange', pattern: 'stripes' },
          { key: 'limit', label: '429', color: 'purple', pattern: 'dots' },
        ]}
        values={[
          [10, 2, 1],
          [5, 5, 0],
        ]}
      />,
    );
    const fills = (label: string) =>
      [...container.querySelectorAll('svg[role="img"] rect')]
        .filter((r) => r.querySelector('title')?.textContent?.endsWith(label))
        .map((r) => r.getAttribute('fill'));
    expect(new Set(fills('2xx'))).toEqual(new Set(['blue']));
    const striped = fills('4xx')[0] ?? '';
    expect(striped).toMatch(/^url\(#.+\)$/);
    expect(fills('429')[0]).toMatch(/^url\(#.+\)$/);
    expect(fills('429')[0]).not.toBe(striped);
    // Each pattern is defined in the chart and drawn in its series' colour.
    const pattern = container.querySelector(striped.slice(4, -1).replace(/:/g, '\\:'));
    expect(pattern?.tagName.toLowerCase()).toBe('pattern');
    expect(pattern?.querySelector('path')?.getAttribute('fill')).toBe('orange');

    const table = screen.getByRole('table', { name: 'Response codes' });
    const rows = within(table).getAllByRole('row');
    expect(rows.map((r) => r.textContent)).toEqual(['Time2xx4xx429', '10:001021', '11:00550']);
  });

  it('join a line over a bucket without requests, with a dot on every value', () => {
    const { container } = render(
      <Lines
        title="Latency"
        labels={['a', 'b', 'c', 'd']}
        series={[{ key: 'avg', label: 'Average', color: 'blue' }]}
        values={[[10, 20, null, 30]]}
        formatY={(v) => `${v} ms`}
      />,
    );
    const lines = container.querySelectorAll('polyline');
    expect(lines).toHaveLength(1);
    expect(lines[0]?.getAttribute('points')?.split(' ')).toHaveLength(3);
    expect(container.querySelectorAll('svg[role="img"] circle')).toHaveLength(3);
  });

  it('mark each line series with its own shape and dash, and read out their values', () => {
    const { container } = render(
      <Lines
        title="Latency"
        labels={['a', 'b']}
        series={[
          { key: 'avg', label: 'Average', color: 'blue', marker: 'circle' },
          { key: 'p95', label: 'p95', color: 'purple', marker: 'square', dashed: true },
        ]}
        values={[
          [10, 20],
          [30, null],
        ]}
        formatY={(v) => `${v} ms`}
      />,
    );
    const chart = screen.getByRole('img', { name: 'Latency: Average up to 20 ms, p95 up to 30 ms' });
    const [avg, p95] = [...chart.querySelectorAll(':scope > g[stroke]')];
    expect(avg?.querySelectorAll('circle')).toHaveLength(2);
    expect(avg?.querySelector('polyline')?.getAttribute('stroke-dasharray')).toBeNull();
    expect(p95?.querySelectorAll('circle')).toHaveLength(0);
    expect(p95?.querySelectorAll('path')).toHaveLength(1);
    const rows = within(screen.getByRole('table', { name: 'Latency' })).getAllByRole('row');
    expect(rows.map((r) => r.textContent)).toEqual(['TimeAveragep95', 'a10 ms30 ms', 'b20 msno requests']);
    expect(container.querySelectorAll('.legend svg')).toHaveLength(2);
  });
});
