import { ServiceError } from '../../errors';

/** Whether trying again (another attempt, the fallback model, the client's own retry) can help. */
export function isRetryable(err: unknown): boolean {
  return err instanceof ServiceError && err.retryable === true;
}

/**
 * An upstream's `retry-after` in whole seconds, at least 1: delay-seconds (`30`, `1.5`) or an HTTP-date
 * (`Wed, 21 Oct 2026 07:28:00 GMT`, RFC 9110 §10.2.3) counted from `now`. Missing or unreadable: 1.
 */
export function retryAfterSeconds(header: string | undefined, now = Date.now()): number {
  if (header === undefined) return 1;
  const trimmed = header.trim();
  const seconds = /^\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) : (Date.parse(trimmed) - now) / 1000;
  return Number.isFinite(seconds) && seconds > 0 ? Math.ceil(seconds) : 1;
}

/**
 * An upstream's HTTP failure in our words. The upstream's body is never passed on whole: it can echo headers or
 * account details. Only a 400's message (the request's own fault) is kept, with any secret removed.
 */
export function upstreamStatusError(
  provider: string,
  status: number,
  detail: { retryAfter?: string; message?: string; secret?: string },
): ServiceError {
  if (status === 429 || status === 529) {
    const seconds = retryAfterSeconds(detail.retryAfter);
    return new ServiceError(
      'unavailable',
      `The upstream provider '${provider}' is rate limiting or overloaded. Please retry after ${seconds} s.`,
      {
        code: 'upstream_overloaded',
        retryable: true,
        retryAfterMs: seconds * 1000,
      },
    );
  }
  if (status === 400 || status === 422) {
    let message = detail.message ?? 'no detail given';
    if (detail.secret) message = message.split(detail.secret).join('[redacted]');
    return new ServiceError(
      'invalid_request',
      `The upstream provider '${provider}' refused the request: ${message}`,
      {
        code: 'upstream_invalid_request',
        retryable: false,
      },
    );
  }
  if (status === 413) {
    return new ServiceError(
      'payload_too_large',
      `The upstream provider '${provider}' refused the request as too large (status 413).`,
      { code: 'upstream_request_too_large', retryable: false },
    );
  }
  // 408 (timed out reading the request), 409 (a conflict such as a lock) and 425 pass when tried again.
  if (status >= 500 || status === 408 || status === 409 || status === 425) {
    return new ServiceError('upstream', `The upstream provider '${provider}' failed with status ${status}.`, {
      code: 'upstream_error',
      retryable: true,
    });
  }
  // 401/403/404 (and the other 4xx) from an upstream is Tessera's configuration at fault, which no retry fixes.
  return new ServiceError(
    'upstream',
    `The upstream provider '${provider}' rejected Tessera's call (status ${status}); the operator has been told.`,
    { code: 'upstream_rejected', retryable: false },
  );
}

export function upstreamConnectionError(provider: string, cause: unknown): ServiceError {
  return new ServiceError('upstream', `Could not reach the upstream provider '${provider}'.`, {
    code: 'upstream_unreachable',
    retryable: true,
    cause,
  });
}

export function upstreamStreamError(provider: string, message: string, cause?: unknown): ServiceError {
  return new ServiceError('upstream', `The upstream provider '${provider}' failed mid-answer: ${message}`, {
    code: 'upstream_error',
    retryable: true,
    cause,
  });
}
