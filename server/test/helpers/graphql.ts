import { and, asc, eq } from 'drizzle-orm';
import { memberships } from '../../src/db/schema';
import { createSession } from '../../src/modules/accounts';
import type { TestServer } from './server';

export interface GqlResult<T = Record<string, unknown>> {
  status: number;
  data: T | null;
  errors: { message: string; extensions?: Record<string, unknown> }[] | undefined;
  text: string;
}

export type GqlAuth = { key: string } | { cookie: string } | null;

/** A GraphQL call over HTTP, authenticated by an API key or a session cookie. */
export async function gql<T = Record<string, unknown>>(
  server: TestServer,
  auth: GqlAuth,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<GqlResult<T>> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (auth && 'key' in auth) headers.authorization = `Bearer ${auth.key}`;
  if (auth && 'cookie' in auth) headers.cookie = auth.cookie;
  const res = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ query, variables }),
  });
  const text = await res.text();
  const body = JSON.parse(text) as { data?: T | null; errors?: GqlResult['errors'] };
  return { status: res.status, data: body.data ?? null, errors: body.errors, text };
}

/** The dashboard's session cookie for an account's first owner (or for `userId` in that organisation). */
export async function sessionCookie(server: TestServer, accountId: string, userId?: string): Promise<string> {
  const [owner] = await server.services.ctx.db
    .select({ userId: memberships.userId })
    .from(memberships)
    .where(and(eq(memberships.accountId, accountId), eq(memberships.role, 'owner')))
    .orderBy(asc(memberships.createdAt))
    .limit(1);
  const user = userId ?? owner?.userId;
  if (!user) throw new Error(`sessionCookie: no owner in ${accountId}`);
  const { token } = await createSession({ ctx: server.services.ctx, userId: user, accountId });
  return `tessera_session=${encodeURIComponent(token)}`;
}

/** Writes everything metered so far (requests still ending are waited for up to a few seconds). */
export async function settleUsage(server: TestServer, expectedAtLeast: () => Promise<number>, want: number) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    await server.services.usage.flush();
    if ((await expectedAtLeast()) >= want || Date.now() > deadline) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const USAGE_QUERY = /* GraphQL */ `
  query Usage($period: UsagePeriod!, $first: Int, $after: String, $mode: KeyMode, $keyId: ID) {
    usage(period: $period, mode: $mode, keyId: $keyId) {
      from
      to
      bucketSeconds
      summary {
        totalRequests
        successRate
        averageLatencyMs
        p95LatencyMs
        totalTokens
        tokensRemaining
        previous { totalRequests successRate averageLatencyMs p95LatencyMs totalTokens }
        change { totalRequests successRate averageLatencyMs p95LatencyMs totalTokens }
      }
      timeseries { start requests status2xx status4xx status429 status5xx aborted tokens averageLatencyMs p95LatencyMs }
      endpoints { method path requests averageLatencyMs successRate tokens }
      recentErrors(first: $first, after: $after) {
        edges { cursor node { requestId status method path message code type occurredAt maskedKey } }
        pageInfo { hasNextPage endCursor }
      }
    }
  }
`;
