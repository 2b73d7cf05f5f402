import { isServiceError, type ScopedResource } from '../errors';
import type { Logger } from '../logger';

export const DENIAL_TRANSPORTS = ['rest', 'graphql', 'trpc'] as const;
export type DenialTransport = (typeof DENIAL_TRANSPORTS)[number];

export interface TenantDenial {
  transport: DenialTransport;
  /** The caller's account: the one that named a resource outside itself. */
  actorAccount: string;
  /** How the caller authenticated; the key's id (never the key) when by key. */
  via: 'api_key' | 'session';
  actorKeyId?: string | undefined;
  resource: ScopedResource;
  requestId: string | undefined;
  /** The route template, the tRPC procedure or the GraphQL field. */
  operation: string;
}

/** The account-scoped resource a refusal is about, when the error is such a "not found". */
export function deniedResource(err: unknown): ScopedResource | undefined {
  return isServiceError(err) && err.kind === 'not_found' ? err.resource : undefined;
}

/** Counts refusals (the Prometheus registry): by transport and resource kind only, never by account. */
export interface TenantDenialSink {
  tenantDenied(transport: DenialTransport, resource: ScopedResource['kind']): void;
}

/**
 * Every transport hands `logTenantDenial` the process's logger, so the counter goes with it: one registration
 * at start-up (services.ts) instead of a metrics argument threaded through each transport's error path. A
 * WeakMap, so that several servers in one process (tests) each count their own.
 */
const sinks = new WeakMap<Logger, TenantDenialSink>();

export function countTenantDenials(logger: Logger, sink: TenantDenialSink): void {
  sinks.set(logger, sink);
}

/**
 * One warn line per refused access to an id-addressed resource outside the caller's account, and one count in
 * `tessera_tenant_isolation_denied_total` when the logger is the one registered with the metrics. Every
 * account-scoped "not found" is logged, whether or not another account holds that id: checking would cost a
 * query an attacker could repeat (document ids have no index outside their account) and would be ambiguous
 * (two accounts may both name a document `a1`). The answer stays a plain 404; only the log tells.
 * Fields are ids and names only: no key, token, cookie or password.
 */
export function logTenantDenial(logger: Logger, denial: TenantDenial): void {
  logger.warn(
    {
      event: 'tenant_isolation_denied',
      transport: denial.transport,
      actor_account: denial.actorAccount,
      via: denial.via,
      ...(denial.actorKeyId !== undefined && { actor_key_id: denial.actorKeyId }),
      resource_kind: denial.resource.kind,
      resource_id: denial.resource.id.slice(0, 300),
      operation: denial.operation,
      request_id: denial.requestId,
    },
    'refused: resource not in the caller account',
  );
  sinks.get(logger)?.tenantDenied(denial.transport, denial.resource.kind);
}
