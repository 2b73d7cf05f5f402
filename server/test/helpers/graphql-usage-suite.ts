import { afterAll, beforeAll } from 'vitest';
import { startTestServer, type TestServer } from './server';

/** What the client saw of one request, to compare with the usage event the server recorded for it. */
export interface Sent {
  requestId: string;
  method: string;
  route: string;
  status: number;
  message: string | null;
  tokens: number | null;
  masked: string;
}

/** One server whose simulated model streams slowly enough for a client to hang up mid-stream. */
export interface GraphqlUsageSuite {
  server: TestServer;
  /** Sends one request with `key` and notes what came back; can be taken off the object at once. */
  send(
    key: { key: string; kind: 'live' | 'test'; masked: string },
    method: string,
    path: string,
    route: string,
    body?: string,
  ): Promise<Sent>;
}

export const chatBody = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    model: 'tessera-fast-4k',
    messages: [{ role: 'user', content: 'Count to ten.' }],
    ...extra,
  });

/** Registers the suite's hooks in the calling test file; `server` is set before its first test. */
export function useGraphqlUsageSuite(): GraphqlUsageSuite {
  const suite = {
    async send(key, method, path, route, body) {
      const res = await fetch(`${suite.server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
        ...(body && { body }),
      });
      const text = await res.text();
      let message: string | null = null;
      let tokens: number | null = null;
      if (res.headers.get('content-type')?.includes('json')) {
        const json = JSON.parse(text) as { error?: { message: string }; usage?: { total_tokens: number } };
        message = json.error?.message ?? null;
        if (json.usage) tokens = json.usage.total_tokens;
      } else {
        // A stream: the last chunk with usage (include_usage) carries the totals.
        for (const line of text.split('\n')) {
          if (!line.startsWith('data: {')) continue;
          const chunk = JSON.parse(line.slice(6)) as { usage?: { total_tokens: number } | null };
          if (chunk.usage) tokens = chunk.usage.total_tokens;
        }
      }
      return {
        requestId: String(res.headers.get('x-request-id')),
        method,
        route,
        status: res.status,
        message,
        tokens,
        masked: key.masked,
      };
    },
  } as GraphqlUsageSuite;
  beforeAll(async () => {
    suite.server = await startTestServer({ env: { SIMULATOR_TOKEN_DELAY_MS: '40' } });
  });
  afterAll(() => suite.server?.close());
  return suite;
}

/** The answer to USAGE_QUERY (graphql-helpers.ts), as far as the usage tests read it. */
export interface UsageData {
  bucketSeconds: number;
  summary: {
    totalRequests: number;
    successRate: number | null;
    averageLatencyMs: number | null;
    p95LatencyMs: number | null;
    totalTokens: number;
    tokensRemaining: number;
  };
  timeseries: {
    requests: number;
    status2xx: number;
    status4xx: number;
    status429: number;
    status5xx: number;
    aborted: number;
    tokens: number;
  }[];
  endpoints: {
    method: string;
    path: string;
    requests: number;
    averageLatencyMs: number;
    successRate: number;
    tokens: number | null;
  }[];
  recentErrors: {
    edges: {
      cursor: string;
      node: {
        requestId: string;
        status: number;
        method: string;
        path: string;
        message: string | null;
        maskedKey: string | null;
      };
    }[];
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
  };
}
