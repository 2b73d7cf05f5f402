import { afterAll, beforeAll } from 'vitest';
import { createAccountWithKey } from './fixtures';
import { startTestServer, type TestServer } from './server';

/**
 * The real server (one analysis worker unless `env` says otherwise) and a key of a fresh account, started before
 * the file's tests and closed after them; `post` sends a body to POST /api/code/analyze with that key.
 */
export function analysisEndpoint(env: Record<string, string> = {}): {
  post(body: unknown): Promise<Response>;
} {
  let server: TestServer | undefined;
  let key = '';
  beforeAll(async () => {
    server = await startTestServer({ env: { CODE_ANALYSIS_WORKERS: '1', ...env } });
    key = (await createAccountWithKey(server)).key.key;
  });
  afterAll(async () => {
    await server?.close();
  });
  return {
    post(body) {
      if (!server) throw new Error('the analysis server is not started yet');
      return fetch(`${server.url}/api/code/analyze`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    },
  };
}
