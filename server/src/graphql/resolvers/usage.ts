import { KeyId } from '@tessera/shared';
import { ServiceError } from '../../errors';
import {
  accountAllowance,
  errorGroups,
  type PeriodPreset,
  type ResolvedPeriod,
  recentErrors,
  resolvePeriod,
  type UsageScope,
  usageByDeployment,
  usageByEndpoint,
  usageSummary,
  usageTimeseries,
} from '../../modules/analytics';
import { isAccountKey } from '../../modules/keys';
import type { GraphqlContext } from '../context';
import { logGraphqlDenial } from '../denial';
import { toGraphQLError } from '../errors';

interface UsageArgs {
  period: 'LAST_1H' | 'LAST_24H' | 'LAST_7D' | 'LAST_30D' | 'CUSTOM';
  from?: Date | null;
  to?: Date | null;
  mode?: 'LIVE' | 'TEST' | null;
  keyId?: string | null;
  method?: string | null;
  path?: string | null;
}

/** What `Usage`'s fields share: whose usage and which period. Each field runs its own query, only if asked. */
interface UsageParent {
  ctx: GraphqlContext;
  scope: UsageScope;
  period: ResolvedPeriod;
}

async function mapped<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw toGraphQLError(err);
  }
}

/** One aggregate read, run in the account's share of the instance's analytics queries (modules/analytics/gate.ts). */
function aggregate<T>(p: UsageParent, work: () => Promise<T>): Promise<T> {
  return mapped(() => p.ctx.services.analyticsGate.run(p.ctx.account.id, work));
}

function parseKeyId(value: string | null | undefined): string | undefined {
  if (value === null || value === undefined) return undefined;
  const parsed = KeyId.safeParse(value);
  if (!parsed.success) {
    throw new ServiceError(
      'invalid_request',
      '`keyId` must be a key id such as key_… (printable, at most 64).',
      {
        param: 'keyId',
      },
    );
  }
  return parsed.data;
}

const ENDPOINT_TEXT = /^[\x21-\x7e]{1,200}$/;

/** `method` and `path` go together: one endpoint, as `endpoints` names it. */
function parseEndpoint(
  method: string | null | undefined,
  path: string | null | undefined,
): UsageScope['endpoint'] {
  if (!method && !path) return undefined;
  if (!method || !path) {
    throw new ServiceError('invalid_request', '`method` and `path` narrow usage to one endpoint together.', {
      param: method ? 'path' : 'method',
    });
  }
  if (!ENDPOINT_TEXT.test(method) || !ENDPOINT_TEXT.test(path)) {
    throw new ServiceError(
      'invalid_request',
      '`method` and `path` must be an endpoint as `endpoints` lists it (printable, at most 200).',
      { param: ENDPOINT_TEXT.test(method) ? 'path' : 'method' },
    );
  }
  return { method: method.toUpperCase(), route: path };
}

export const usageResolvers = {
  Query: {
    usage: (_: unknown, args: UsageArgs, ctx: GraphqlContext): Promise<UsageParent> =>
      mapped(async () => {
        const { config, clock } = ctx.services.ctx;
        const period = resolvePeriod(
          {
            preset: args.period.toLowerCase() as PeriodPreset,
            from: args.from ?? undefined,
            to: args.to ?? undefined,
          },
          clock.now(),
          config.usage.minuteRollupRetentionDays,
        );
        const keyId = parseKeyId(args.keyId);
        if (keyId && !(await isAccountKey({ ctx: ctx.services.ctx, accountId: ctx.account.id, keyId }))) {
          // The answer stays the account-scoped one (no usage): only the log tells that the key is not theirs.
          logGraphqlDenial(ctx, { kind: 'api_key', id: keyId }, 'usage');
        }
        const scope: UsageScope = {
          accountId: ctx.account.id,
          mode: args.mode ? (args.mode === 'LIVE' ? 'live' : 'test') : undefined,
          keyId,
          endpoint: parseEndpoint(args.method, args.path),
        };
        return { ctx, scope, period };
      }),
  },
  Usage: {
    from: (p: UsageParent) => p.period.from,
    to: (p: UsageParent) => p.period.to,
    bucketSeconds: (p: UsageParent) => p.period.bucketMs / 1000,
    summary: (p: UsageParent) =>
      aggregate(p, async () => {
        const [summary, allowance] = await Promise.all([
          usageSummary({ ctx: p.ctx.services.ctx, scope: p.scope, period: p.period }),
          accountAllowance({
            allowance: p.ctx.services.allowance,
            account: p.ctx.account,
            planDefaults: p.ctx.services.ctx.config.planDefaults,
          }),
        ]);
        const lookups = summary.cacheHits + summary.cacheMisses;
        return {
          ...summary,
          cache: {
            hits: summary.cacheHits,
            misses: summary.cacheMisses,
            hitRate: lookups === 0 ? null : summary.cacheHits / lookups,
            savedMicros: summary.savedMicros,
          },
          tokensRemaining: allowance.remaining,
          currency: p.ctx.services.catalogue.prices.currency,
        };
      }),
    timeseries: (p: UsageParent) =>
      aggregate(
        p,
        async () =>
          (await usageTimeseries({ ctx: p.ctx.services.ctx, scope: p.scope, period: p.period })).points,
      ),
    endpoints: (p: UsageParent) =>
      aggregate(p, () => usageByEndpoint({ ctx: p.ctx.services.ctx, scope: p.scope, period: p.period })),
    deployments: (p: UsageParent) =>
      aggregate(p, () => usageByDeployment({ ctx: p.ctx.services.ctx, scope: p.scope, period: p.period })),
    recentErrors: (p: UsageParent, args: { first?: number | null; after?: string | null }) =>
      aggregate(p, async () => {
        const page = await recentErrors({
          ctx: p.ctx.services.ctx,
          scope: p.scope,
          period: p.period,
          first: args.first ?? 20,
          after: args.after,
        });
        return {
          edges: page.errors.map((e) => ({ cursor: e.cursor, node: e })),
          pageInfo: { hasNextPage: page.hasNextPage, endCursor: page.errors.at(-1)?.cursor ?? null },
        };
      }),
    errorGroups: (p: UsageParent, args: { first?: number | null }) =>
      aggregate(p, () =>
        errorGroups({ ctx: p.ctx.services.ctx, scope: p.scope, period: p.period, first: args.first ?? 20 }),
      ),
  },
};
