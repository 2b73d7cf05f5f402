/** Routing's health through the real server: the circuit breaker, 429 cooldowns, weighted spread. */
import type OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { writeCatalogue } from '../helpers/chat-setup';
import { type FakeDeployment, startFakeDeployment } from '../helpers/fake-deployments';
import { createAccountWithKey } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';
import { ask, client, keysOf, messages, resetFakes, routedEntry } from './setup';

const NAMES = ['primary', 'secondary', 'limited', 'spare', 'solo', 'heavy', 'light', 'reserve'] as const;
const fake = {} as Record<(typeof NAMES)[number], FakeDeployment>;
let fakes: FakeDeployment[];
let server: TestServer;
let live: OpenAI;

// Long enough that the calls made while a breaker is open all fit in it on a machine this busy.
const COOLDOWN_MS = 2_500;

beforeAll(async () => {
  fakes = await Promise.all(NAMES.map(startFakeDeployment));
  for (const f of fakes) fake[f.name as (typeof NAMES)[number]] = f;
  const breaker = { failures: 2, cooldown_ms: COOLDOWN_MS };
  server = await startTestServer({
    env: {
      MODELS_FILE: writeCatalogue([
        routedEntry('guarded', [{ fake: fake.primary }, { fake: fake.secondary }], { breaker }),
        routedEntry('cooled', [{ fake: fake.limited }, { fake: fake.spare }], { breaker }),
        routedEntry('alone', [{ fake: fake.solo }], { breaker }),
        routedEntry(
          'spread',
          [
            { fake: fake.heavy, weight: 3 },
            { fake: fake.light, weight: 1 },
            { fake: fake.reserve, weight: 0 },
          ],
          { strategy: 'weighted', breaker },
        ),
      ]),
      ...keysOf(fakes),
      MODEL_TIMEOUT_MS: '4000',
      PLAN_PRO_RPM: '100000',
    },
  });
  live = client(server, (await createAccountWithKey(server, { plan: 'pro', kind: 'live' })).key.key);
});

afterAll(async () => {
  await server?.close();
  await Promise.all((fakes ?? []).map((f) => f.close()));
});

beforeEach(() => resetFakes(fakes));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function stateOf(model: string, index: number): string | undefined {
  return server.services.router.deploymentsOf(model)[index]?.health.state;
}

describe('circuit breaker', () => {
  it('opens after consecutive failures (calls skip it), half-opens after the cooldown, and closes when the probe answers', async () => {
    fake.primary.mode = 'fail';
    expect((await ask(live, 'guarded')).provider).toBe('secondary');
    expect(stateOf('guarded', 0)).toBe('closed');
    expect((await ask(live, 'guarded')).provider).toBe('secondary');
    expect(stateOf('guarded', 0)).toBe('open');
    // /metrics says so.
    const metrics = await (await fetch(`${server.metricsUrl}/metrics`)).text();
    expect(metrics).toContain('tessera_deployment_breaker_open{model="guarded",deployment="primary"} 1');
    expect(metrics).toContain('tessera_deployment_breaker_open{model="guarded",deployment="secondary"} 0');
    expect(metrics).toContain('tessera_deployment_available{model="guarded",deployment="primary"} 0');
    // Open: the primary is not called at all.
    for (let i = 0; i < 3; i++) expect((await ask(live, 'guarded')).provider).toBe('secondary');
    expect(fake.primary.calls).toHaveLength(2);

    // After the cooldown one call probes it; still failing, it opens again for another cooldown.
    await sleep(COOLDOWN_MS + 100);
    expect((await ask(live, 'guarded')).provider).toBe('secondary');
    expect(fake.primary.calls).toHaveLength(3);
    expect(stateOf('guarded', 0)).toBe('open');
    expect((await ask(live, 'guarded')).provider).toBe('secondary');
    expect(fake.primary.calls).toHaveLength(3);

    // Recovered: the next probe answers and the breaker closes; calls go back to the first deployment.
    fake.primary.mode = 'ok';
    await sleep(COOLDOWN_MS + 100);
    expect((await ask(live, 'guarded')).provider).toBe('primary');
    expect(stateOf('guarded', 0)).toBe('closed');
    expect((await ask(live, 'guarded')).provider).toBe('primary');
    expect(fake.primary.calls).toHaveLength(5);
  });

  it('with every breaker open, calls are refused at once: 503 no_deployment_available with Retry-After, no upstream called', async () => {
    fake.primary.mode = 'fail';
    fake.secondary.mode = 'fail';
    for (let i = 0; i < 2; i++) {
      const err = await live.chat.completions.create({ model: 'guarded', messages }).catch((e: unknown) => e);
      expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    }
    expect([stateOf('guarded', 0), stateOf('guarded', 1)]).toEqual(['open', 'open']);
    const resting = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${live.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'guarded', messages }),
    });
    expect(resting.status).toBe(503);
    expect(((await resting.json()) as { error: { code: string } }).error.code).toBe(
      'no_deployment_available',
    );
    expect(['1', '2', '3']).toContain(resting.headers.get('retry-after'));
    expect([fake.primary.calls.length, fake.secondary.calls.length]).toEqual([2, 2]);
  });
});

describe("an upstream's 429", () => {
  it('rests the deployment for its retry-after (the next calls go elsewhere), then it is used again', async () => {
    fake.limited.mode = '429';
    fake.limited.retryAfter = 3;
    expect((await ask(live, 'cooled')).provider).toBe('spare');
    fake.limited.mode = 'ok';
    expect((await ask(live, 'cooled')).provider).toBe('spare');
    expect((await ask(live, 'cooled')).provider).toBe('spare');
    expect(fake.limited.calls).toHaveLength(1);
    // Not a failure: its breaker stays closed.
    expect(stateOf('cooled', 0)).toBe('closed');
    await sleep(3_100);
    expect((await ask(live, 'cooled')).provider).toBe('limited');
  });

  it('with no other deployment: 503 now, then 503 no_deployment_available with Retry-After, no upstream call, until it is over', async () => {
    fake.solo.mode = '429';
    fake.solo.retryAfter = 3;
    const first = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${live.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'alone', messages }),
    });
    expect(first.status).toBe(503);
    expect(((await first.json()) as { error: { code: string } }).error.code).toBe('upstream_overloaded');
    const second = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${live.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'alone', messages }),
    });
    expect(second.status).toBe(503);
    const body = (await second.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('no_deployment_available');
    expect(body.error.message).toContain("'alone'");
    expect(['1', '2', '3']).toContain(second.headers.get('retry-after'));
    expect(second.headers.get('x-should-retry')).toBe('true');
    expect(fake.solo.calls).toHaveLength(1);
    fake.solo.mode = 'ok';
    await sleep(3_100);
    expect((await ask(live, 'alone')).provider).toBe('solo');
  });
});

describe('weighted spread', () => {
  it('shares calls exactly by weight (3:1), weight 0 only as the backup when the others fail', async () => {
    const seen: Record<string, number> = {};
    for (let i = 0; i < 40; i++) {
      const { provider } = await ask(live, 'spread');
      seen[String(provider)] = (seen[String(provider)] ?? 0) + 1;
    }
    expect(seen).toEqual({ heavy: 30, light: 10 });
    fake.heavy.mode = 'fail';
    fake.light.mode = 'fail';
    expect((await ask(live, 'spread')).provider).toBe('reserve');
  });

  it('streams with the openai SDK are spread and named in the header too', async () => {
    // Smooth weighted round-robin repeats heavy, heavy, light, heavy: any 4 calls in a row hold one cycle.
    const names: string[] = [];
    for (let i = 0; i < 4; i++) {
      const { data, response } = await live.chat.completions
        .create({ model: 'spread', messages, stream: true })
        .withResponse();
      let text = '';
      for await (const chunk of data) text += chunk.choices[0]?.delta.content ?? '';
      const name = String(response.headers.get('x-tessera-provider'));
      expect(text).toBe(`answered by ${name}`);
      names.push(name);
    }
    expect(names.filter((n) => n === 'heavy')).toHaveLength(3);
    expect(names.filter((n) => n === 'light')).toHaveLength(1);
  });
});
