import { TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { asUnavailable, ServiceError } from './errors';
import { toGraphQLError } from './graphql/errors';
import { toHttpError } from './rest/errors';
import { toTRPCError } from './trpc/trpc';

function withCode(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

describe('an unreachable database is a 503 to retry, not a 500', () => {
  const cases = [
    withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'),
    withCode('write CONNECTION_CLOSED 127.0.0.1:5432', 'CONNECTION_CLOSED'),
    withCode('terminating connection due to administrator command', '57P01'),
    withCode('connection failure', '08006'),
    // Wrapped by the query builder: the connection error is the cause.
    new Error('Failed query: select 1', { cause: withCode('read ECONNRESET', 'ECONNRESET') }),
  ];

  it.each(cases)('REST: %s', (err) => {
    const http = toHttpError(err, 'req_1');
    expect(http.status).toBe(503);
    expect(http.body.error).toMatchObject({ type: 'server_error', code: 'service_unavailable' });
    expect(http.headers).toMatchObject({ 'retry-after': '1', 'x-should-retry': 'true' });
    // Nothing of the driver's message (hosts, ports) reaches the client.
    expect(http.body.error.message).not.toMatch(/127\.0\.0\.1|ECONN|CONNECTION_|administrator/);
  });

  it.each(cases)('GraphQL and tRPC: %s', (err) => {
    expect(toGraphQLError(err).extensions).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      http: { status: 503 },
    });
    const unavailable = asUnavailable(err);
    expect(unavailable).toBeInstanceOf(ServiceError);
    expect(toTRPCError(unavailable)).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  });

  it('other failures stay what they were', () => {
    expect(toHttpError(new Error('boom'), 'req_1').status).toBe(500);
    expect(toHttpError(withCode('duplicate key', '23505'), 'req_1').status).toBe(500);
    expect(asUnavailable(new ServiceError('invalid_request', 'bad'))).toBeUndefined();
    expect(toHttpError(new ServiceError('not_found', 'no'), 'req_1').status).toBe(404);
    expect(toTRPCError(new TRPCError({ code: 'BAD_REQUEST' })).code).toBe('BAD_REQUEST');
  });
});
