import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from '../../test/helpers/server';
import { TrpcTestClient } from '../../test/helpers/trpc-client';
import { PLAYGROUND_ANALYZE_PATH, PLAYGROUND_CHAT_PATH } from './playground';

describe('playground chat through the dashboard session', () => {
  let server: TestServer;
  let cookie: string;
  beforeAll(async () => {
    server = await startTestServer();
    const client = new TrpcTestClient(server.url);
    await client.mutation('auth.signUp', { email: 'play@example.com', password: 'correct horse battery' });
    cookie = client.cookie ?? '';
  });
  afterAll(async () => {
    await server.close();
  });

  const body = { model: 'tessera-fast-4k', messages: [{ role: 'user', content: 'Hello' }], stream: true };
  interface ErrorBody {
    error: { message: string; type: string; param: string | null; code: string | null };
  }
  const errorOf = async (res: Response) => ((await res.json()) as ErrorBody).error;
  const post = (headers: Record<string, string>, payload: unknown = body) =>
    fetch(`${server.url}${PLAYGROUND_CHAT_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(payload),
    });

  it('refuses a request without a session or without the CSRF header, in the OpenAI error shape', async () => {
    const anonymous = await post({ 'x-tessera-csrf': '1' });
    expect(anonymous.status).toBe(401);
    expect(await errorOf(anonymous)).toMatchObject({ code: 'session_required', param: null });
    const noCsrf = await post({ cookie });
    expect(noCsrf.status).toBe(403);
    expect((await errorOf(noCsrf)).code).toBe('csrf_header_missing');
  });

  it('rejects bad input like /v1 does', async () => {
    const res = await post({ cookie, 'x-tessera-csrf': '1' }, { model: 'no-such-model', messages: [] });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(Object.keys(await errorOf(res)).sort()).toEqual(['code', 'message', 'param', 'type']);
  });

  it('streams a test-mode completion and meters it as the account test usage', async () => {
    const res = await post({ cookie, 'x-tessera-csrf': '1' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    expect(res.headers.get('x-tessera-provider')).toBe('simulator');
    const text = await res.text();
    const events = text
      .split('\n\n')
      .filter((e) => e.startsWith('data: '))
      .map((e) => e.slice(6));
    expect(events.at(-1)).toBe('[DONE]');
    const content = events
      .slice(0, -1)
      .map((e) => JSON.parse(e) as { choices: { delta: { content?: string } }[] })
      .map((c) => c.choices[0]?.delta.content ?? '')
      .join('');
    expect(content.length).toBeGreaterThan(0);

    await server.services.usage.flush();
    const usage = async (mode: 'TEST' | 'LIVE') => {
      const gql = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie },
        body: JSON.stringify({
          query: `query($mode: KeyMode) { usage(period: LAST_24H, mode: $mode) { endpoints { method path requests tokens } } }`,
          variables: { mode },
        }),
      });
      return ((await gql.json()) as { data: { usage: { endpoints: { path: string; requests: number }[] } } })
        .data.usage.endpoints;
    };
    // The request is metered when the server sees its response finish, which can come just after the client has
    // read the last event: flush and look again until it shows (or 5 s pass).
    await vi.waitFor(
      async () => {
        await server.services.usage.flush();
        const test = await usage('TEST');
        expect(test.find((e) => e.path === PLAYGROUND_CHAT_PATH)?.requests).toBe(2);
      },
      { timeout: 5_000, interval: 100 },
    );
    expect(await usage('LIVE')).toEqual([]);
  });

  it('runs the code analysis for the session', async () => {
    const res = await fetch(`${server.url}${PLAYGROUND_ANALYZE_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie, 'x-tessera-csrf': '1' },
      body: JSON.stringify({ code: 'import hashlib\nh = hashlib.md5(b"x")\n', language: 'python' }),
    });
    expect(res.status).toBe(200);
    const analysis = (await res.json()) as { object: string; issues: { rule_id: string }[] };
    expect(analysis.object).toBe('code.analysis');
    expect(analysis.issues.map((i) => i.rule_id)).toContain('security/weak-hash');
  });
});
