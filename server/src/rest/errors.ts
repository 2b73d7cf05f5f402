import type { ErrorBody } from '@tessera/shared';
import type { ErrorKind } from '../errors';
import { asUnavailable, isServiceError } from '../errors';
import { errorHeaders } from '../http/error-headers';

export interface HttpError {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
}

function statusOf(kind: ErrorKind): { status: number; type: string } {
  switch (kind) {
    case 'invalid_request':
      return { status: 400, type: 'invalid_request_error' };
    case 'authentication':
      return { status: 401, type: 'invalid_request_error' };
    case 'permission':
      return { status: 403, type: 'permission_error' };
    case 'not_found':
      return { status: 404, type: 'invalid_request_error' };
    case 'method_not_allowed':
      return { status: 405, type: 'invalid_request_error' };
    case 'conflict':
      return { status: 409, type: 'invalid_request_error' };
    case 'payload_too_large':
      return { status: 413, type: 'invalid_request_error' };
    case 'request_timeout':
      return { status: 408, type: 'invalid_request_error' };
    case 'unsupported_media_type':
      return { status: 415, type: 'invalid_request_error' };
    case 'rate_limited':
      return { status: 429, type: 'requests' };
    case 'insufficient_quota':
      return { status: 429, type: 'insufficient_quota' };
    case 'timeout':
      return { status: 500, type: 'server_error' };
    case 'upstream':
      return { status: 502, type: 'server_error' };
    case 'unavailable':
      return { status: 503, type: 'server_error' };
    case 'internal':
      return { status: 500, type: 'server_error' };
    default: {
      const unreachable: never = kind;
      throw new Error(`unmapped error kind ${String(unreachable)}`);
    }
  }
}

/** Maps any thrown value to OpenAI's error body; unknown errors become a generic 500 that names the request. */
export function toHttpError(thrown: unknown, requestId: string): HttpError {
  const err = asUnavailable(thrown) ?? thrown;
  if (isServiceError(err)) {
    const { status, type } = statusOf(err.kind);
    return {
      status,
      headers: errorHeaders(err),
      body: { error: { message: err.message, type: err.type ?? type, param: err.param, code: err.code } },
    };
  }
  return {
    status: 500,
    headers: {},
    body: {
      error: {
        message: `The server had an error while processing your request. Sorry about that! Please contact support with the request id ${requestId} if the error persists.`,
        type: 'server_error',
        param: null,
        code: null,
      },
    },
  };
}
