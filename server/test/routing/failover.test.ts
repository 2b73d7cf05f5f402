/** Routing across deployments: failover before the first byte only, within the model timeout, and who answered. */
import { eq } from 'drizzle-orm';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { usageEvents } from '../../src/db/schema';
import { catalogueEntry, writeCatalogue } from '../helpers/chat-setup';
import { type FakeDeployment, startFakeDeployment } from '../helpers/fake-deployments';
import { FAKE_TEXT, type FakeUpstream, startFakeAnthropic } from '../helpers/fake-upstreams';
import { createAccountWithKey } from '../helpers/fixtures';
import { gql, sessionCookie } from '../helpers/graphql';
import { startTestServer, type TestServer } from '../helpers/server';
import { ask, client, keysOf, messages, resetFakes, routedEntry } from './setup';

let east: FakeDeployment;
let west: FakeDeployment;
let backup: FakeDeployment;
let fakes: FakeDeployment[];
let anthropic: FakeUpstream;
let server: TestServer;
let live: OpenAI;
let liveKey: string;
let liveAccount: string;
let testKey: string;

const MODEL_TIMEOUT_MS = 4_000;
const ATTEMPT_TIMEOUT_MS = 500;

beforeAll(async () => {
  [east, west, backup] = (await Promise.all(['east', 'west', 'backup'].map(startFakeDeployment))) as [
    FakeDeployment,
    FakeDeployment,
    FakeDeployment,
  ];
  fakes = [east, west, backup];
  anthropic = await startFakeAnthropic();
  server = await startTestServer({
    env: {
      MODELS_FILE: writeCatalogue([
        routedEntry(
          'routed',
          fakes.map((fake) => ({ fake })),
          // The breaker stays out of this file's way (breaker.test.ts is about it).
          { attempt_timeout_ms: ATTEMPT_TIMEOUT_MS, breaker: { failures: 1_000, min_requests: 1_000 } },
        ),
        // An OpenAI-compatible deployment, then Anthropic's Messages API behind the same model id.
        catalogueEntry('mixed', 'openai', 'catalogue-model', {
          deployments: [
            { name: 'east', base_url: east.url, api_key_env: 'EAST_API_KEY', upstream_model: 'east-model' },
            {
              name: 'claude',
              provider: 'anthropic',
              base_url: anthropic.url,
              api_key_env: 'CLAUDE_API_KEY',
              upstream_model: 'ok',
            },
          ],
          routing: { breaker: { failures: 1_000, min_requests: 1_000 } },
        }),
      ]),
      ...keysOf(fakes),
      CLAUDE_API_KEY: 'key-claude',
      MODEL_TIMEOUT_MS: String(MODEL_TIMEOUT_MS),
      UPSTREAM_RETRIES: '2',
      UPSTREAM_RETRY_BACKOFF_MS: '10',
      PLAN_PRO_RPM: '100000',
    },
  });
  const created = await createAccountWithKey(server, { plan: 'pro', kind: 'live' });
  liveKey = created.key.key;
  liveAccount = created.account.id;
  testKey = (await createAccountWithKey(server, { plan: 'pro', kind: 'test' })).key.key;
  live = client(server, liveKey);
});

afterAll(async () => {
  await server?.close();
  await Promise.all((fakes ?? []).map((f) => f.close()));
  await anthropic?.close();
});

beforeEach(() => {
  resetFakes(fakes);
  anthropic.requests.length = 0;
});

/** The stored usage event of a request, once the buffer has been written. */
async function eventOf(requestId: string | null) {
  for (let i = 0; i < 50; i++) {
    await server.services.usage.flush();
    const [row] = await server.services.ctx.db
      .select()
      .from(usageEvents)
      .where(eq(usageEvents.requestId, String(requestId)));
    if (row) return row;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no usage event for ${requestId}`);
}

describe('a model served by several deployments', () => {
  it('is answered by the first deployment, with its upstream model and its own key; the header and the usage event name it', async () => {
    const answer = await ask(live, 'routed');
    expect(answer.text).toBe('answered by east');
    expect(answer.provider).toBe('east');
    expect(east.calls).toEqual([{ authorization: 'Bearer key-east', model: 'east-model', stream: false }]);
    expect(west.calls).toHaveLength(0);
    expect((await eventOf(answer.requestId)).deployment).toBe('east');
  });

  it('fails over before the first byte: a 500, then a stall past the attempt timeout, then the third answers within the model timeout', async () => {
    east.mode = 'fail';
    west.mode = 'stall';
    const started = performance.now();
    const answer = await ask(live, 'routed');
    const elapsed = performance.now() - started;
    expect(answer.text).toBe('answered by backup');
    expect(answer.provider).toBe('backup');
    // One call each: a deployment's retry is the next deployment, not the same one again.
    expect([east.calls.length, west.calls.length, backup.calls.length]).toEqual([1, 1, 1]);
    expect(elapsed).toBeGreaterThanOrEqual(ATTEMPT_TIMEOUT_MS - 50);
    expect(elapsed).toBeLessThan(MODEL_TIMEOUT_MS);
    expect((await eventOf(answer.requestId)).deployment).toBe('backup');
  });

  it('a stream fails over while no chunk has reached the client: accepted then silent, or refused', async () => {
    east.mode = 'stall-after-headers';
    west.mode = 'fail';
    const { data: stream, response } = await live.chat.completions
      .create({ model: 'routed', messages, stream: true })
      .withResponse();
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('answered by backup');
    expect(response.headers.get('x-tessera-provider')).toBe('backup');
    expect([east.calls.length, west.calls.length, backup.calls.length]).toEqual([1, 1, 1]);
  });

  it('never fails over once a chunk was sent: the stream ends with an error event, and no other deployment is called', async () => {
    east.mode = 'break-mid-stream';
    const res = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${liveKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'routed', messages, stream: true }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-tessera-provider')).toBe('east');
    const text = await res.text();
    expect(text.split('"content":"answered"').length - 1).toBe(1);
    expect(text).toMatch(/data: \{"error":\{"message":"The upstream provider 'east' failed mid-answer/);
    expect(text).not.toContain('[DONE]');
    expect(text).not.toContain('answered by');
    expect(west.calls).toHaveLength(0);
    expect(backup.calls).toHaveLength(0);
  });

  it('every deployment failing: the last failure is the answer, naming the last deployment tried', async () => {
    for (const f of fakes) f.mode = 'fail';
    const err = await live.chat.completions.create({ model: 'routed', messages }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    const e = err as InstanceType<typeof OpenAI.APIError>;
    expect(e.status).toBe(502);
    expect(e.headers?.get('x-tessera-provider')).toBe('backup');
    expect(e.message).toContain("'backup'");
    expect(fakes.map((f) => f.calls.length)).toEqual([1, 1, 1]);
    const requestId = e.headers?.get('x-request-id') ?? null;
    expect((await eventOf(requestId)).deployment).toBe('backup');
    // The dashboard's queries name the deployment of each failure.
    const answer = await gql<{
      usage: {
        recentErrors: { edges: { node: { requestId: string; deployment: string | null } }[] };
        errorGroups: { groups: { status: number; deployment: string | null; count: number }[] };
      };
    }>(
      server,
      { cookie: await sessionCookie(server, liveAccount) },
      `query { usage(period: LAST_24H) {
        recentErrors(first: 50) { edges { node { requestId deployment } } }
        errorGroups(first: 50) { groups { status deployment count } }
      } }`,
    );
    expect(answer.errors).toBeUndefined();
    const node = answer.data?.usage.recentErrors.edges.find(
      (edge) => edge.node.requestId === requestId,
    )?.node;
    expect(node?.deployment).toBe('backup');
    expect(answer.data?.usage.errorGroups.groups).toContainEqual({
      status: 502,
      deployment: 'backup',
      count: 1,
    });
  });

  it("fails over across providers: an OpenAI-compatible deployment's 500, then Anthropic's API with its own key", async () => {
    east.mode = 'fail';
    const answer = await ask(live, 'mixed');
    expect(answer.text).toBe(FAKE_TEXT);
    expect(answer.provider).toBe('claude');
    expect(anthropic.requests).toHaveLength(1);
    expect(anthropic.requests[0]?.headers['x-api-key']).toBe('key-claude');
    expect(anthropic.requests[0]?.body.model).toBe('ok');
    const { data: stream, response } = await live.chat.completions
      .create({ model: 'mixed', messages, stream: true })
      .withResponse();
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe(FAKE_TEXT);
    expect(response.headers.get('x-tessera-provider')).toBe('claude');
  });

  it('test keys are answered by the simulator, never by a deployment', async () => {
    const answer = await ask(client(server, testKey), 'routed');
    expect(answer.provider).toBe('simulator');
    expect(fakes.map((f) => f.calls.length)).toEqual([0, 0, 0]);
  });

  it('lists the model as owned by its provider, not the simulator', async () => {
    const model = await live.models.retrieve('routed');
    expect(model.owned_by).toBe('openai');
  });
});
