import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ErrorGroupsData, KeyOptionsData, OverviewData, RecentErrorsData } from '../graphql/documents';
import { renderWithTrpc } from '../test/fake-trpc';
import { OverviewPage } from './OverviewPage';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  // The view lives in the URL: each test starts from the default one.
  window.history.replaceState(null, '', '/');
});

const figures = (n: number) => ({
  totalRequests: n,
  successRate: n ? 0.9 : null,
  averageLatencyMs: n ? 120 : null,
  p95LatencyMs: n ? 300 : null,
  totalTokens: n * 100,
  // 100 tokens a request at $2.50 a million: $0.00025 a request.
  totalCostMicros: n * 250,
});

function overview(requests: number, previous: number): OverviewData {
  const point = (start: string, r: number) => ({
    start,
    requests: r,
    status2xx: r,
    status4xx: 0,
    status429: 0,
    status5xx: 0,
    aborted: 0,
    averageLatencyMs: r ? 100 : null,
    p95LatencyMs: r ? 200 : null,
  });
  return {
    usage: {
      from: '2026-01-09T12:00:00.000Z',
      to: '2026-01-10T12:00:00.000Z',
      bucketSeconds: 43_200,
      summary: {
        ...figures(requests),
        cache: {
          hits: requests / 5,
          misses: requests / 10,
          hitRate: requests ? 2 / 3 : null,
          savedMicros: requests * 50,
        },
        tokensRemaining: 99_000,
        currency: 'USD',
        previous: figures(previous),
        change: {
          totalRequests: previous ? (requests - previous) / previous : null,
          successRate: previous ? 0 : null,
          averageLatencyMs: previous ? 0 : null,
          p95LatencyMs: previous ? 0 : null,
          totalTokens: previous ? (requests - previous) / previous : null,
          totalCostMicros: previous ? (requests - previous) / previous : null,
        },
      },
      timeseries: [point('2026-01-09T12:00:00.000Z', 0), point('2026-01-10T00:00:00.000Z', requests)],
      endpoints: requests
        ? [
            {
              method: 'POST',
              path: '/v1/chat/completions',
              requests,
              averageLatencyMs: 120,
              successRate: 0.9,
              tokens: 100 * requests,
              costMicros: 250 * requests,
            },
          ]
        : [],
      deployments: {
        rows: requests
          ? [
              {
                model: 'gpt-4o',
                deployment: 'azure-east',
                requests,
                errors: 0,
                successRate: 1,
                p50LatencyMs: 90,
                p95LatencyMs: 200,
                tokens: 100 * requests,
                costMicros: 250 * requests,
              },
            ]
          : [],
        truncated: false,
      },
    },
  };
}

const noErrors: RecentErrorsData = {
  usage: { recentErrors: { edges: [], pageInfo: { hasNextPage: false, endCursor: null } } },
};
const noGroups: ErrorGroupsData = { usage: { errorGroups: { truncated: false, groups: [] } } };
const keyOptions: KeyOptionsData = {
  apiKeys: [{ id: 'key_a', name: 'backend', kind: 'TEST', masked: 'sk_test_…abcd' }],
};

/** What the page's other queries answer: no errors, one key, no sample data. */
function otherAnswer(operationName: string): unknown {
  if (operationName === 'SampleData') return { viewer: { sampleData: false } };
  if (operationName === 'ErrorGroups') return noGroups;
  if (operationName === 'KeyOptions') return keyOptions;
  return noErrors;
}

function serve(data: (vars: Record<string, unknown>) => OverviewData) {
  const seen: Record<string, unknown>[] = [];
  const rest = (url: URL, init: RequestInit) => {
    expect(url.pathname).toBe('/graphql');
    const body = JSON.parse(String(init.body)) as {
      operationName: string;
      variables: Record<string, unknown>;
    };
    seen.push({ op: body.operationName, ...body.variables });
    return Response.json({
      data: body.operationName === 'Overview' ? data(body.variables) : otherAnswer(body.operationName),
    });
  };
  return { seen, rest };
}

/** jsdom's Blob has no text(): read it as a browser without it would. */
function readBlob(blob: Blob | undefined): Promise<string> {
  return new Promise((resolve) => {
    if (!blob) return resolve('');
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.readAsText(blob);
  });
}

describe('overview page', () => {
  it('explains how to make the first call to an account without traffic', async () => {
    const { rest } = serve(() => overview(0, 0));
    renderWithTrpc(<OverviewPage />, {}, rest);
    expect(await screen.findByRole('heading', { name: 'Make your first call' })).toBeTruthy();
    expect(screen.getByRole('article', { name: 'Total requests' }).textContent).toContain('0');
    expect(screen.queryByRole('table')).toBeNull();
  });

  it('shows cards with changes, charts and endpoints, and refetches for another period and mode', async () => {
    const user = userEvent.setup();
    const { rest, seen } = serve((v) => overview(v.period === 'LAST_7D' ? 3000 : 150, 100));
    renderWithTrpc(<OverviewPage />, {}, rest);

    const total = await screen.findByRole('article', { name: 'Total requests' });
    expect(within(total).getByText('150')).toBeTruthy();
    expect(within(total).getByText(/50% vs previous period/)).toBeTruthy();
    expect(screen.getByRole('article', { name: 'Tokens remaining' }).textContent).toContain('99K');
    // What the token figure counts, read with the card (issue 39: it summed refused calls' prompts).
    expect(
      screen.getByRole('article', {
        name: 'Total tokens',
        description: 'Tokens billed by models; refused calls count 0.',
      }),
    ).toBeTruthy();
    // 150 requests at 250 micro-dollars: $0.0375, with its change and what it counts.
    const spend = screen.getByRole('article', {
      name: 'Spend',
      description: "Tokens at each model's price on the day of the call; models without a price count 0.",
    });
    expect(within(spend).getByText('$0.0375')).toBeTruthy();
    expect(within(spend).getByText(/50% vs previous period/)).toBeTruthy();
    // The response cache: 30 hits of 45 chat requests that asked it, 150 × 50 micro-dollars saved.
    const cache = screen.getByRole('article', { name: 'Cache hit rate' });
    expect(within(cache).getByText('66.7%')).toBeTruthy();
    expect(cache.getAttribute('aria-describedby')).toBeTruthy();
    expect(cache.textContent).toContain('30 of 45 chat requests');
    expect(
      within(screen.getByRole('article', { name: 'Saved by the cache' })).getByText('$0.0075'),
    ).toBeTruthy();
    expect(screen.getByRole('img', { name: 'Requests: 150 in total' })).toBeTruthy();
    expect(screen.getByRole('table', { name: 'Requests per endpoint' }).textContent).toContain(
      '/v1/chat/completions',
    );
    // The deployment panel: the model, who answered it, and its spend in the summary's currency.
    const deployments = screen.getByRole('table', { name: 'Requests per deployment' });
    expect(deployments.textContent).toContain('azure-east');
    expect(deployments.textContent).toContain('$0.0375');
    expect(await screen.findByText('No errors in this period')).toBeTruthy();

    await user.click(screen.getByRole('button', { name: '7 d' }));
    await user.click(screen.getByRole('button', { name: 'Test' }));
    await waitFor(() =>
      expect(within(screen.getByRole('article', { name: 'Total requests' })).getByText('3K')).toBeTruthy(),
    );
    expect(screen.getByRole('button', { name: '7 d' }).getAttribute('aria-pressed')).toBe('true');
    expect(seen).toContainEqual(
      expect.objectContaining({ op: 'Overview', period: 'LAST_7D', mode: 'TEST', keyId: null }),
    );
    expect(window.location.search).toBe('?period=7d&mode=test');
  });

  it('shows the error and a retry when GraphQL refuses', async () => {
    renderWithTrpc(<OverviewPage />, {}, () =>
      Response.json({
        errors: [{ message: 'Sign in to continue.', extensions: { code: 'UNAUTHENTICATED' } }],
      }),
    );
    expect((await screen.findByRole('alert')).textContent).toContain('Sign in to continue.');
    expect(screen.getByRole('button', { name: 'Try again' })).toBeTruthy();
  });

  it('asks for a live key when the Live mode has no traffic', async () => {
    const user = userEvent.setup();
    const { rest } = serve(() => overview(0, 0));
    renderWithTrpc(<OverviewPage />, {}, rest);
    expect((await screen.findByRole('link', { name: 'Create a test key' })).getAttribute('href')).toBe(
      '/keys',
    );
    await user.click(screen.getByRole('button', { name: 'Live' }));
    expect(await screen.findByRole('link', { name: 'Create a live key' })).toBeTruthy();
    expect(screen.getByText(/export TESSERA_API_KEY=sk_live_/)).toBeTruthy();
  });

  it('exports the endpoint table, the deployments and every error of the period as CSV', async () => {
    const user = userEvent.setup();
    const files: { name: string; text: Promise<string> }[] = [];
    const blobs: Blob[] = [];
    URL.createObjectURL = (b: Blob) => `blob:${blobs.push(b)}`;
    URL.revokeObjectURL = () => {};
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (
      this: HTMLAnchorElement,
    ) {
      files.push({ name: this.download, text: readBlob(blobs.at(-1)) });
    });
    const error = (i: number) => ({
      cursor: `c${i}`,
      node: {
        requestId: `req_${i}`,
        status: 429,
        method: 'POST',
        path: '/v1/chat/completions',
        message: i === 0 ? '=cmd, "quoted"' : 'Rate limit',
        code: 'rate_limit_exceeded',
        deployment: 'azure-east',
        occurredAt: '2026-01-10T11:00:00.000Z',
        maskedKey: 'sk_test_…abcd',
      },
    });
    const rest = (_url: URL, init: RequestInit) => {
      const body = JSON.parse(String(init.body)) as {
        operationName: string;
        variables: { first: number; after: string | null };
      };
      if (body.operationName === 'Overview') return Response.json({ data: overview(150, 100) });
      if (body.operationName === 'KeyOptions' || body.operationName === 'SampleData') {
        return Response.json({ data: otherAnswer(body.operationName) });
      }
      if (body.operationName === 'ErrorGroups') {
        const { node } = error(0);
        const group = { ...node, count: 2, lastSeen: node.occurredAt, lastRequestId: node.requestId };
        return Response.json({ data: { usage: { errorGroups: { truncated: false, groups: [group] } } } });
      }
      // Two pages of errors for the export; the section's own first page is the first of them.
      const second = body.variables.after === 'c0';
      const edges = second ? [error(1)] : [error(0)];
      return Response.json({
        data: {
          usage: {
            recentErrors: { edges, pageInfo: { hasNextPage: !second, endCursor: second ? null : 'c0' } },
          },
        },
      });
    };
    renderWithTrpc(<OverviewPage />, {}, rest);
    await screen.findByRole('table', { name: 'Requests per endpoint' });
    await waitFor(() => expect(screen.getAllByRole('button', { name: 'Download CSV' })).toHaveLength(3));
    const buttons = screen.getAllByRole('button', { name: 'Download CSV' });
    await user.click(buttons[0] as HTMLElement);
    await user.click(buttons[1] as HTMLElement);
    await user.click(buttons[2] as HTMLElement);
    expect(await screen.findByText('Downloaded 2 errors.')).toBeTruthy();
    expect(files.map((f) => f.name)).toEqual([
      'tessera-endpoints-last_24h-all.csv',
      'tessera-deployments-last_24h-all.csv',
      'tessera-errors-last_24h.csv',
    ]);
    expect(await files[0]?.text).toBe(
      'method,path,requests,average_latency_ms,success_rate,tokens,cost_USD\r\nPOST,/v1/chat/completions,150,120,0.9,15000,0.0375\r\n',
    );
    expect(await files[1]?.text).toBe(
      'model,deployment,requests,errors,success_rate,p50_latency_ms,p95_latency_ms,tokens,cost_USD\r\n' +
        'gpt-4o,azure-east,150,0,1,90,200,15000,0.0375\r\n',
    );
    const errors = (await files[2]?.text)?.split('\r\n') ?? [];
    expect(errors[0]).toBe('occurred_at,status,code,method,path,message,deployment,key,request_id');
    expect(errors[1]).toBe(
      `2026-01-10T11:00:00.000Z,429,rate_limit_exceeded,POST,/v1/chat/completions,"'=cmd, ""quoted""",azure-east,sk_test_…abcd,req_0`,
    );
    expect(errors[2]).toContain('req_1');
    click.mockRestore();
  });

  it('reads the period, mode, key and endpoint from the URL, and keeps filter choices there', async () => {
    const user = userEvent.setup();
    window.history.replaceState(null, '', '/?period=1h&mode=live&endpoint=GET+/v1/models/:id');
    const { rest, seen } = serve(() => overview(150, 100));
    renderWithTrpc(<OverviewPage />, {}, rest);
    await screen.findByRole('table', { name: 'Requests per endpoint' });
    expect(seen).toContainEqual({
      op: 'Overview',
      period: 'LAST_1H',
      mode: 'LIVE',
      keyId: null,
      method: 'GET',
      path: '/v1/models/:id',
    });
    expect(screen.getByRole('button', { name: '1 h' }).getAttribute('aria-pressed')).toBe('true');
    const keySelect = screen.getByRole('combobox', { name: 'Key' });
    await screen.findByRole('option', { name: 'backend (sk_test_…abcd)' });
    await user.selectOptions(keySelect, 'key_a');
    await waitFor(() =>
      expect(seen).toContainEqual(expect.objectContaining({ op: 'Overview', keyId: 'key_a' })),
    );
    expect(new URLSearchParams(window.location.search).get('key')).toBe('key_a');
    await user.selectOptions(screen.getByRole('combobox', { name: 'Endpoint' }), '');
    expect(new URLSearchParams(window.location.search).get('endpoint')).toBeNull();
    expect(new URLSearchParams(window.location.search).get('period')).toBe('1h');
  });

  it('labels sample data and removes it in one action, then reads every figure again', async () => {
    const user = userEvent.setup();
    let sample = true;
    let overviews = 0;
    const rest = (_url: URL, init: RequestInit) => {
      const body = JSON.parse(String(init.body)) as { operationName: string };
      if (body.operationName === 'SampleData')
        return Response.json({ data: { viewer: { sampleData: sample } } });
      if (body.operationName === 'Overview') {
        overviews += 1;
        return Response.json({ data: overview(sample ? 3000 : 1, 0) });
      }
      return Response.json({ data: otherAnswer(body.operationName) });
    };
    const { calls } = renderWithTrpc(
      <OverviewPage />,
      {
        'demo.removeSampleData': () => {
          sample = false;
          return { removedEvents: 3000 };
        },
      },
      rest,
    );
    const notice = await screen.findByRole('region', { name: 'Sample data' });
    expect(notice.textContent).toMatch(/made-up traffic/);
    const before = overviews;
    await user.click(within(notice).getByRole('button', { name: 'Remove sample data' }));
    expect((await screen.findByRole('status')).textContent).toMatch(/removed: 3,000 requests/);
    expect(screen.queryByRole('region', { name: 'Sample data' })).toBeNull();
    expect(calls.map((c) => c.path)).toContain('demo.removeSampleData');
    await waitFor(() => expect(overviews).toBeGreaterThan(before));
  });
});
