import { ServiceError } from '../../errors';
import { accountAllowance } from '../../modules/analytics';
import { hasSampleData } from '../../modules/demo';
import { listKeys } from '../../modules/keys';
import { listModels } from '../../modules/models';
import { resolveLimits } from '../../modules/plans';
import { authorize, listMembers } from '../../modules/teams';
import type { GraphqlContext } from '../context';
import { toGraphQLError } from '../errors';

const upper = <T extends string>(v: T) => v.toUpperCase() as Uppercase<T>;

/** viewer, apiKeys and models: thin reads of the caller's own account. */
export const accountResolvers = {
  Query: {
    viewer: (_: unknown, __: unknown, ctx: GraphqlContext) => ({ ctx }),
    apiKeys: async (_: unknown, __: unknown, ctx: GraphqlContext) => {
      const keys = await listKeys({ ctx: ctx.services.ctx, accountId: ctx.account.id });
      return keys.map((k) => ({
        ...k,
        kind: upper(k.kind),
        scopes: k.scopes?.map(upper) ?? null,
        state: upper(k.state),
        tokenBudget: k.tokenBudget && { ...k.tokenBudget, period: upper(k.tokenBudget.period) },
      }));
    },
    members: async (_: unknown, __: unknown, ctx: GraphqlContext) => {
      try {
        if (!ctx.member) {
          throw new ServiceError(
            'permission',
            "Members are readable with the dashboard's session, not with an API key.",
            {
              code: 'permission_denied',
            },
          );
        }
        authorize(ctx.member, 'members.read');
        const members = await listMembers({ ctx: ctx.services.ctx, accountId: ctx.account.id });
        return members.map((m) => ({ ...m, role: upper(m.role), activeKeys: m.liveKeys + m.testKeys }));
      } catch (err) {
        throw toGraphQLError(err);
      }
    },
    models: (_: unknown, __: unknown, { services }: GraphqlContext) =>
      listModels({ catalogue: services.catalogue, ownership: services.ownership }).data.map((m) => ({
        id: m.id,
        ownedBy: m.owned_by,
        contextWindow: m.context_window,
        maxOutputTokens: m.type === 'chat' ? m.max_output_tokens : null,
        type: upper(m.type),
        dimensions: m.type === 'embedding' ? m.dimensions : null,
        description: m.description,
      })),
  },
  Viewer: {
    account: ({ ctx }: { ctx: GraphqlContext }) => ctx.account,
    plan: ({ ctx }: { ctx: GraphqlContext }) => upper(ctx.account.plan),
    limits: ({ ctx }: { ctx: GraphqlContext }) =>
      resolveLimits(ctx.account, ctx.services.ctx.config.planDefaults),
    allowance: ({ ctx }: { ctx: GraphqlContext }) =>
      accountAllowance({
        allowance: ctx.services.allowance,
        account: ctx.account,
        planDefaults: ctx.services.ctx.config.planDefaults,
      }),
    authenticatedBy: ({ ctx }: { ctx: GraphqlContext }) => ctx.authenticatedBy,
    role: ({ ctx }: { ctx: GraphqlContext }) => (ctx.member ? upper(ctx.member.role) : null),
    sampleData: ({ ctx }: { ctx: GraphqlContext }) =>
      hasSampleData({ ctx: ctx.services.ctx, accountId: ctx.account.id }).catch((err: unknown) => {
        throw toGraphQLError(err);
      }),
  },
};
