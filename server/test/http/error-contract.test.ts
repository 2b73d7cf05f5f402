import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountWithKey } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
let key: string;
beforeAll(async () => {
  server = await startTestServer({ env: { BODY_LIMIT_BYTES: '65536' } });
  key = (await createAccountWithKey(server)).key.key;
});
afterAll(async () => {
  await server?.close();
});

interface ErrorResponse {
  error: { message: string; type: string; param: string | null; code: string | null };
}

async function errorOf(res: Response): Promise<ErrorResponse['error']> {
  expect(res.headers.get('content-type')).toMatch(/application\/json/);
  expect(res.headers.get('x-request-id')).toMatch(/^req_/);
  const body = (await res.json()) as ErrorResponse;
  expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
  return body.error;
}

describe('REST error contract', () => {
  it('unknown route: 404 in OpenAI body, with or without a key', async () => {
    const res = await fetch(`${server.url}/v1/nothing-here`);
    expect(res.status).toBe(404);
    const err = await errorOf(res);
    expect(err.message).toContain('GET /v1/nothing-here');
    const authed = await fetch(`${server.url}/api/nope`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
    });
    expect(authed.status).toBe(404);
  });

  it('wrong method: 405 with Allow', async () => {
    const res = await fetch(`${server.url}/v1/models`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET');
    expect((await errorOf(res)).code).toBe('method_not_allowed');
  });

  it('unknown model: 404 model_not_found naming the model', async () => {
    const res = await fetch(`${server.url}/v1/models/gpt-17`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(404);
    const err = await errorOf(res);
    expect(err.code).toBe('model_not_found');
    expect(err.message).toContain("'gpt-17'");
  });

  it('percent-decodes model ids', async () => {
    const res = await fetch(`${server.url}/v1/models/tessera-fast%2D4k`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { id: string }).id).toBe('tessera-fast-4k');
  });

  it('every response carries x-request-id, and a sane incoming one is kept', async () => {
    const res = await fetch(`${server.url}/healthz`, { headers: { 'x-request-id': 'abc-123' } });
    expect(res.headers.get('x-request-id')).toBe('abc-123');
    const odd = await fetch(`${server.url}/healthz`, { headers: { 'x-request-id': 'x'.repeat(500) } });
    expect(odd.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('malformed percent-encoding in the path is a 400, not a 500', async () => {
    const res = await fetch(`${server.url}/v1/models/%E0%A4%A`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(400);
    await errorOf(res);
  });
});
