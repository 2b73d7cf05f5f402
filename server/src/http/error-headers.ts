import type { ServiceError } from '../errors';

/**
 * The response headers of a module's error: its retry advice as the OpenAI SDKs read it (`x-should-retry`,
 * `retry-after-ms`, then `retry-after` in whole seconds), then any header the transport itself attached. The one
 * place where a ServiceError becomes HTTP headers, for every transport.
 */
export function errorHeaders(err: ServiceError): Record<string, string> {
  const headers: Record<string, string> = {};
  if (err.retryAfterMs !== undefined) {
    const ms = Math.max(0, Math.round(err.retryAfterMs));
    headers['retry-after'] = String(Math.max(1, Math.ceil(ms / 1000)));
    headers['retry-after-ms'] = String(ms);
  }
  if (err.retryable !== undefined) headers['x-should-retry'] = String(err.retryable);
  return Object.assign(headers, err.headers);
}
