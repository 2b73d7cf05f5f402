import { afterAll, beforeAll, expect } from 'vitest';
import { createAccountWithKey } from './fixtures';
import { sessionCookie } from './graphql';
import { LogCapture } from './log-capture';
import { startTestServer, type TestServer } from './server';

/** The codes server/src/graphql/README.md documents for /graphql; INTERNAL_SERVER_ERROR is deliberately absent. */
const DOCUMENTED_CODES = new Set([
  'BAD_REQUEST',
  'BAD_USER_INPUT',
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'OPERATION_RESOLUTION_FAILURE',
  'PERSISTED_QUERY_NOT_SUPPORTED',
  'PAYLOAD_TOO_LARGE',
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'NOT_FOUND',
  'RATE_LIMITED',
]);

export interface Sent {
  status: number;
  body: { data?: unknown; errors?: { message?: unknown; extensions?: { code?: unknown } }[] };
}

/**
 * One server for bad input against POST /graphql, with a key and a dashboard session on one free account. Every
 * answer must be a GraphQL error body with a documented `extensions.code` (or data), never a 5xx or an internal
 * error, and the server must stay healthy: the server's error-level log lines are kept in `logs` to check that.
 */
export interface GraphqlBadInputSuite {
  server: TestServer;
  key: string;
  cookie: string;
  logs: LogCapture;
  /** A POST to /graphql, with the key unless `auth` says otherwise; the functions can be taken off the object at once. */
  post(
    body: string | Uint8Array,
    headers?: Record<string, string>,
    auth?: Record<string, string>,
  ): Promise<Response>;
  /** A documented answer: a 4xx or 200 with `errors` of documented codes (or `data`), no stack, no 5xx. */
  expectHandled(res: Response, context: string): Promise<Sent>;
  /** After the bad input: the server is healthy, answers a normal query, and logged no internal error. */
  expectHealthy(): Promise<void>;
}

/** Registers the suite's hooks in the calling test file; `server`, `key` and `cookie` are set before its first test. */
export function useGraphqlBadInputSuite(): GraphqlBadInputSuite {
  const suite = {
    logs: new LogCapture(),
    async post(body, headers = {}, auth = { authorization: `Bearer ${suite.key}` }) {
      return fetch(`${suite.server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...auth, ...headers },
        body,
        signal: AbortSignal.timeout(20_000),
      });
    },
    async expectHandled(res, context) {
      const text = await res.text();
      const where = `${context.slice(0, 400)} → ${res.status} ${text.slice(0, 300)}`;
      expect(res.status, where).toBeLessThan(500);
      expect([200, 400, 401, 413, 415], where).toContain(res.status);
      expect(res.headers.get('x-request-id'), where).toBeTruthy();
      expect(text, where).not.toMatch(/\bat .+\.(ts|js):\d+|stacktrace/i);
      const body = JSON.parse(text) as Sent['body'];
      if (body.errors !== undefined) {
        expect(body.errors.length, where).toBeGreaterThan(0);
        for (const e of body.errors) {
          expect(typeof e.message, where).toBe('string');
          expect(DOCUMENTED_CODES.has(String(e.extensions?.code)), where).toBe(true);
        }
      } else {
        expect(res.status, where).toBe(200);
        expect(typeof body.data, where).toBe('object');
      }
      return { status: res.status, body };
    },
    async expectHealthy() {
      expect((await fetch(`${suite.server.url}/healthz`)).status).toBe(200);
      const ok = await suite.expectHandled(
        await suite.post(JSON.stringify({ query: '{ viewer { plan } }' })),
        'normal query',
      );
      expect(ok.body).toEqual({ data: { viewer: { plan: 'FREE' } } });
      // Unknown errors are logged at error level (graphql/errors.ts): none may have happened.
      expect(suite.logs.entries().filter((e) => Number(e.level) >= 50)).toEqual([]);
    },
  } as GraphqlBadInputSuite;
  beforeAll(async () => {
    suite.server = await startTestServer({
      env: { PLAN_FREE_RPM: '1000000', LOG_LEVEL: 'error' },
      logs: suite.logs,
    });
    const created = await createAccountWithKey(suite.server);
    suite.key = created.key.key;
    suite.cookie = await sessionCookie(suite.server, created.account.id);
  });
  afterAll(async () => {
    await suite.server?.close();
  });
  return suite;
}
