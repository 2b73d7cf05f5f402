import { gql } from './client';

export type UsagePeriod = 'LAST_1H' | 'LAST_24H' | 'LAST_7D' | 'LAST_30D';
export type KeyMode = 'LIVE' | 'TEST';

interface Totals {
  totalRequests: number;
  successRate: number | null;
  averageLatencyMs: number | null;
  p95LatencyMs: number | null;
  totalTokens: number;
}

export interface UsagePointData {
  start: string;
  requests: number;
  status2xx: number;
  status4xx: number;
  status429: number;
  status5xx: number;
  aborted: number;
  averageLatencyMs: number | null;
  p95LatencyMs: number | null;
}

export interface OverviewData {
  usage: {
    from: string;
    to: string;
    bucketSeconds: number;
    summary: Totals & {
      tokensRemaining: number;
      previous: Totals;
      change: {
        totalRequests: number | null;
        successRate: number | null;
        averageLatencyMs: number | null;
        p95LatencyMs: number | null;
        totalTokens: number | null;
      };
    };
    timeseries: UsagePointData[];
    endpoints: {
      method: string;
      path: string;
      requests: number;
      averageLatencyMs: number;
      successRate: number;
      tokens: number | null;
    }[];
  };
}

export interface UsageVariables {
  period: UsagePeriod;
  mode: KeyMode | null;
}

const TOTALS = 'totalRequests successRate averageLatencyMs p95LatencyMs totalTokens';

export const OverviewQuery = gql<OverviewData, UsageVariables>(
  'Overview',
  `query Overview($period: UsagePeriod!, $mode: KeyMode) {
  usage(period: $period, mode: $mode) {
    from
    to
    bucketSeconds
    summary {
      ${TOTALS}
      tokensRemaining
      previous { ${TOTALS} }
      change { totalRequests successRate averageLatencyMs p95LatencyMs totalTokens }
    }
    timeseries {
      start requests status2xx status4xx status429 status5xx aborted averageLatencyMs p95LatencyMs
    }
    endpoints { method path requests averageLatencyMs successRate tokens }
  }
}`,
);

export interface RecentErrorsData {
  usage: {
    recentErrors: {
      edges: {
        cursor: string;
        node: {
          requestId: string;
          status: number;
          method: string;
          path: string;
          message: string | null;
          code: string | null;
          occurredAt: string;
          maskedKey: string | null;
        };
      }[];
      pageInfo: { hasNextPage: boolean; endCursor: string | null };
    };
  };
}

export const RecentErrorsQuery = gql<
  RecentErrorsData,
  UsageVariables & { first: number; after: string | null }
>(
  'RecentErrors',
  `query RecentErrors($period: UsagePeriod!, $mode: KeyMode, $first: Int!, $after: String) {
  usage(period: $period, mode: $mode) {
    recentErrors(first: $first, after: $after) {
      edges {
        cursor
        node { requestId status method path message code occurredAt maskedKey }
      }
      pageInfo { hasNextPage endCursor }
    }
  }
}`,
);

/** Every document the dashboard sends, for the schema check. */
export const ALL_DOCUMENTS = [OverviewQuery, RecentErrorsQuery];
