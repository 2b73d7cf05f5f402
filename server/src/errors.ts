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
  /** Extra response headers (rate limit, retry advice). */
  headers?: Record<string, string>;
  /**
   * For `not_found`: the account-scoped resource the caller named. Transports log such refusals as
   * `tenant_isolation_denied` (lib/tenant-denial.ts); the answer itself stays a plain "not found".
   */
  resource?: ScopedResource;
  cause?: unknown;
}

/** A resource addressed by id inside an account (never a secret: key ids, document ids, collection names). */
export interface ScopedResource {
  kind: 'api_key' | 'document' | 'collection';
  id: string;
}

export class ServiceError extends Error {
  readonly kind: ErrorKind;
  readonly param: string | null;
  readonly code: string | null;
  readonly type: string | undefined;
  readonly headers: Record<string, string>;
  readonly resource: ScopedResource | undefined;

  constructor(kind: ErrorKind, message: string, options: ServiceErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ServiceError';
    this.kind = kind;
    this.param = options.param ?? null;
    this.code = options.code ?? null;
    this.type = options.type;
    this.headers = options.headers ?? {};
    this.resource = options.resource;
  }
}

export function isServiceError(value: unknown): value is ServiceError {
  return value instanceof ServiceError;
}
