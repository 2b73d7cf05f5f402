import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountWithKey } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';

const README = readFileSync(join(__dirname, '../../../README.md'), 'utf8');

/** The README's first call, sent as its curl line sends it: the answer it quotes is the one the server gives. */
describe('the README’s first call', () => {
  let server: TestServer;
  let key: string;

  beforeAll(async () => {
    server = await startTestServer({ env: { SIMULATOR_TOKEN_DELAY_MS: '0' } });
    key = (await createAccountWithKey(server)).key.key;
  });
  afterAll(async () => {
    await server?.close();
  });

  it('answers what the README quotes', async () => {
    const curl = /-d '(\{"model":[^']+\})'/.exec(README)?.[1];
    const quoted = /answers from the built-in simulator[^`]*`"([^`]+)"`/.exec(README)?.[1];
    expect(curl).toBeTruthy();
    expect(quoted).toBeTruthy();
    const res = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: curl,
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { choices: { message: { content: string } }[] };
    expect(body.choices[0]?.message.content).toBe(quoted?.replace(/\s+/g, ' '));
  });

  it('answers the embeddings example with the default catalogue', async () => {
    const curl = /embeddings -H[^\n]*\n\s*-d '(\{"model":[^']+\})'/.exec(README)?.[1];
    expect(curl).toBeTruthy();
    const res = await fetch(`${server.url}/v1/embeddings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: curl,
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { embedding: number[] }[] };
    const sent = JSON.parse(curl ?? '{}') as { input: string[]; dimensions: number };
    expect(body.data).toHaveLength(sent.input.length);
    expect(body.data[0]?.embedding).toHaveLength(sent.dimensions);
  });

  it('answers the Responses API example with the default catalogue', async () => {
    const curl = /responses -H[^\n]*\n\s*-d '(\{"model":[^']+\})'/.exec(README)?.[1];
    expect(curl).toBeTruthy();
    const res = await fetch(`${server.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: curl,
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { object: string; status: string; output: { type: string }[] };
    expect(body).toMatchObject({ object: 'response', status: 'completed' });
    expect(body.output.map((o) => o.type)).toEqual(['message']);
  });
});
