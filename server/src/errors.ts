/**
 * The closed set of failures a module can report. Each transport maps them once:
 * REST in rest/errors.ts (OpenAI's body), tRPC in trpc/trpc.ts, GraphQL in graphql/errors.ts.
 */
export type ErrorKind =
  | 'invalid_request'
  | 'authentication'
  | 'permission'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'payload_too_large'
  | 'request_timeout'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'insufficient_quota'
  | 'timeout'
  | 'upstream'
  | 'unavailable'
  | 'internal';

export interface ServiceErrorOptions {
  /** The request parameter at fault, OpenAI's `param`. */
  param?: string | null;
  /** A machine-readable code, OpenAI's `code` (e.g. `invalid_api_key`, `model_not_found`). */
  code?: string | null;
  /** Overrides the `type` the transport would derive from the kind. */
  type?: string;
  /**
   * Whether the same request may succeed when sent again (transports say it as `x-should-retry`); left out when
   * the kind's usual meaning holds.
   */
  retryable?: boolean;
  /** How long to wait before trying again (transports say it as `retry-after` and `retry-after-ms`). */
  retryAfterMs?: number;
  /**
   * Response headers a transport adds to its own refusals (its rate-limit headers, `connection: close`);
   * modules say `retryable` and `retryAfterMs` instead and never name an HTTP header.
   */
  headers?: Record<string, string>;
  /**
   * For `not_found`: the account-scoped resource the caller named. Transports log such refusals as
   * `tenant_isolation_denied` (lib/tenant-denial.ts); the answer itself stays a plain "not found".
   */
  resource?: ScopedResource;
  cause?: unknown;
}

export const SCOPED_RESOURCE_KINDS = ['api_key', 'document', 'collection'] as const;

/** A resource addressed by id inside an account (never a secret: key ids, document ids, collection names). */
export interface ScopedResource {
  kind: (typeof SCOPED_RESOURCE_KINDS)[number];
  id: string;
}

export class ServiceError extends Error {
  readonly kind: ErrorKind;
  readonly param: string | null;
  readonly code: string | null;
  readonly type: string | undefined;
  readonly retryable: boolean | undefined;
  readonly retryAfterMs: number | undefined;
  readonly headers: Record<string, string>;
  readonly resource: ScopedResource | undefined;

  constructor(kind: ErrorKind, message: string, options: ServiceErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ServiceError';
    this.kind = kind;
    this.param = options.param ?? null;
    this.code = options.code ?? null;
    this.type = options.type;
    this.retryable = options.retryable;
    this.retryAfterMs = options.retryAfterMs;
    this.headers = options.headers ?? {};
    this.resource = options.resource;
  }
}

export function isServiceError(value: unknown): value is ServiceError {
  return value instanceof ServiceError;
}

/** Socket errors, postgres.js's connection errors, and Postgres' connection-exception and shutdown codes. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'CONNECTION_CLOSED',
  'CONNECTION_DESTROYED',
  'CONNECTION_ENDED',
  'CONNECT_TIMEOUT',
  'DATABASE_TIMEOUT',
  '57P01',
  '57P02',
  '57P03',
]);

/**
 * A dependency that cannot be reached (the database is down or restarting), found anywhere in the cause chain,
 * as a 503 with retry advice: the client's request was fine and may be repeated, so it is not a 500.
 */
export function asUnavailable(err: unknown): ServiceError | undefined {
  if (isServiceError(err)) return undefined;
  let current: unknown = err;
  for (let depth = 0; current !== null && typeof current === 'object' && depth < 6; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && (CONNECTION_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code))) {
      return new ServiceError(
        'unavailable',
        'The service is temporarily unavailable. Please retry shortly.',
        {
          code: 'service_unavailable',
          retryable: true,
          retryAfterMs: 1_000,
          cause: err,
        },
      );
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
