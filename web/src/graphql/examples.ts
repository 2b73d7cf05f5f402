/** The explorer's pre-filled tabs; graphql/documents.test.ts validates each against the server's schema. */
export const EXPLORER_EXAMPLES: { name: string; query: string; variables?: string }[] = [
  {
    name: 'Viewer',
    query: `# Your account, plan and this month's token allowance
query Viewer {
  viewer {
    account { email createdAt }
    plan
    limits { requestsPerMinute monthlyTokens }
    allowance { used remaining resetsAt }
  }
}
`,
  },
  {
    name: 'Usage summary',
    query: `# Totals for the last 7 days of live traffic, against the 7 days before
query UsageSummary($period: UsagePeriod!, $mode: KeyMode) {
  usage(period: $period, mode: $mode) {
    summary {
      totalRequests
      successRate
      averageLatencyMs
      p95LatencyMs
      totalTokens
      totalCostMicros
      currency
      tokensRemaining
      change { totalRequests successRate averageLatencyMs totalTokens totalCostMicros }
    }
    endpoints { method path requests averageLatencyMs successRate tokens costMicros }
  }
}
`,
    variables: '{ "period": "LAST_7D", "mode": "LIVE" }',
  },
  {
    name: 'Recent errors',
    query: `# The newest failed requests; pass pageInfo.endCursor as "after" for the next page
query RecentErrors($after: String) {
  usage(period: LAST_24H) {
    recentErrors(first: 10, after: $after) {
      edges { node { status method path message code deployment occurredAt maskedKey } }
      pageInfo { hasNextPage endCursor }
    }
  }
}
`,
  },
  {
    name: 'Keys and models',
    query: `query KeysAndModels {
  apiKeys { name kind masked createdAt lastUsedAt revokedAt }
  models { id contextWindow maxOutputTokens description }
}
`,
  },
];
