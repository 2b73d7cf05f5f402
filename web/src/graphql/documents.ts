import { gql } from './client';

export type UsagePeriod = 'LAST_1H' | 'LAST_24H' | 'LAST_7D' | 'LAST_30D';
export type KeyMode = 'LIVE' | 'TEST';

interface Totals {
  totalRequests: number;
  successRate: number | null;
  averageLatencyMs: number | null;
  p95LatencyMs: number | null;
  totalTokens: number;
  /** Cost in micro-units of `currency`. */
  totalCostMicros: number;
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
      /** The response cache: chat requests it answered (hits) or could not (misses), and the money it saved. */
      cache: { hits: number; misses: number; hitRate: number | null; savedMicros: number };
      tokensRemaining: number;
      currency: string;
      previous: Totals;
      change: {
        totalRequests: number | null;
        successRate: number | null;
        averageLatencyMs: number | null;
        p95LatencyMs: number | null;
        totalTokens: number | null;
        totalCostMicros: number | null;
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
      costMicros: number | null;
    }[];
    deployments: {
      rows: {
        model: string;
        deployment: string | null;
        requests: number;
        errors: number;
        successRate: number;
        p50LatencyMs: number | null;
        p95LatencyMs: number | null;
        tokens: number | null;
        costMicros: number | null;
      }[];
      truncated: boolean;
    };
  };
}

export interface UsageVariables {
  period: UsagePeriod;
  mode: KeyMode | null;
  /** One key's usage (its id), or every key's. */
  keyId?: string | null;
  /** One endpoint's usage: its method and route template together. */
  method?: string | null;
  path?: string | null;
}

const USAGE_ARGS = '$period: UsagePeriod!, $mode: KeyMode, $keyId: ID, $method: String, $path: String';
const USAGE_VARS = 'period: $period, mode: $mode, keyId: $keyId, method: $method, path: $path';

const TOTALS = 'totalRequests successRate averageLatencyMs p95LatencyMs totalTokens totalCostMicros';

export const OverviewQuery = gql<OverviewData, UsageVariables>(
  'Overview',
  `query Overview(${USAGE_ARGS}) {
  usage(${USAGE_VARS}) {
    from
    to
    bucketSeconds
    summary {
      ${TOTALS}
      cache { hits misses hitRate savedMicros }
      tokensRemaining
      currency
      previous { ${TOTALS} }
      change { totalRequests successRate averageLatencyMs p95LatencyMs totalTokens totalCostMicros }
    }
    timeseries {
      start requests status2xx status4xx status429 status5xx aborted averageLatencyMs p95LatencyMs
    }
    endpoints { method path requests averageLatencyMs successRate tokens costMicros }
    deployments {
      rows { model deployment requests errors successRate p50LatencyMs p95LatencyMs tokens costMicros }
      truncated
    }
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
          deployment: string | null;
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
  `query RecentErrors(${USAGE_ARGS}, $first: Int!, $after: String) {
  usage(${USAGE_VARS}) {
    recentErrors(first: $first, after: $after) {
      edges {
        cursor
        node { requestId status method path message code deployment occurredAt maskedKey }
      }
      pageInfo { hasNextPage endCursor }
    }
  }
}`,
);

export interface ErrorGroupData {
  status: number;
  code: string | null;
  message: string | null;
  method: string;
  path: string;
  deployment: string | null;
  maskedKey: string | null;
  count: number;
  lastSeen: string;
  lastRequestId: string;
}

export interface ErrorGroupsData {
  usage: { errorGroups: { truncated: boolean; groups: ErrorGroupData[] } };
}

export const ErrorGroupsQuery = gql<ErrorGroupsData, UsageVariables & { first: number }>(
  'ErrorGroups',
  `query ErrorGroups(${USAGE_ARGS}, $first: Int!) {
  usage(${USAGE_VARS}) {
    errorGroups(first: $first) {
      truncated
      groups { status code message method path deployment maskedKey count lastSeen lastRequestId }
    }
  }
}`,
);

export interface KeyOptionsData {
  apiKeys: { id: string; name: string; kind: KeyMode; masked: string }[];
}

/** The account's keys, for the overview's key filter. */
export const KeyOptionsQuery = gql<KeyOptionsData, Record<string, never>>(
  'KeyOptions',
  'query KeyOptions { apiKeys { id name kind masked } }',
);

export interface SampleDataData {
  viewer: { sampleData: boolean };
}

/** Whether the account shows sample traffic (the demo account of an embedded install). */
export const SampleDataQuery = gql<SampleDataData, Record<string, never>>(
  'SampleData',
  'query SampleData { viewer { sampleData } }',
);

/** Every document the dashboard sends, for the schema check. */
export const ALL_DOCUMENTS = [
  OverviewQuery,
  RecentErrorsQuery,
  ErrorGroupsQuery,
  KeyOptionsQuery,
  SampleDataQuery,
];
