import type { ScopedResource } from '../errors';
import { logTenantDenial } from '../lib/tenant-denial';
import type { GraphqlContext } from './context';

/** Logs a GraphQL read that named a resource outside the caller's account (lib/tenant-denial.ts). */
export function logGraphqlDenial(ctx: GraphqlContext, resource: ScopedResource, operation: string): void {
  logTenantDenial(ctx.services.ctx.logger, {
    transport: 'graphql',
    actorAccount: ctx.account.id,
    via: ctx.authenticatedBy === 'API_KEY' ? 'api_key' : 'session',
    actorKeyId: ctx.principal?.keyId,
    resource,
    requestId: ctx.request.requestId,
    operation,
  });
}
