/**
 * Deployments' state shared by instances through Redis (modules/routing/sync.ts): two server instances on one
 * Redis, fake upstreams on loopback. An upstream's 429 seen by one instance rests the deployment on both; a
 * breaker one instance opens keeps the other away too, and its probe closing it closes it on both. Without a
 * reachable Redis each instance decides from what it sees itself, and calls go on.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { writeCatalogue } from '../helpers/chat-setup';
import { type Cluster, startCluster, waitFor } from '../helpers/cluster';
import { type FakeDeployment, startFakeDeployment } from '../helpers/fake-deployments';
import { createAccountWithKey, createKey } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';
import { ask, client, keysOf, resetFakes, routedEntry } from './setup';

const REDIS_URL = process.env.TEST_REDIS_URL;

let east: FakeDeployment;
let west: FakeDeployment;
let fakes: FakeDeployment[];
let catalogue: string;
// The state outlives a run in Redis (until its rests expire): each run's models are its own.
const RUN = Math.random().toString(36).slice(2, 8);
const RESTED = `rested-${RUN}`;
const FRAGILE = `fragile-${RUN}`;
const COOLDOWN_MS = 2_000;

beforeAll(async () => {
  [east, west] = (await Promise.all(['east', 'west'].map(startFakeDeployment))) as [
    FakeDeployment,
    FakeDeployment,
  ];
  fakes = [east, west];
  catalogue = writeCatalogue([
    // Rests only: its breaker never opens here.
    routedEntry(RESTED, [{ fake: east }, { fake: west }], {
      breaker: { failures: 1_000, min_requests: 1_000 },
    }),
    // One failure opens its breaker, for a short cooldown.
    routedEntry(FRAGILE, [{ fake: east }, { fake: west }], {
      breaker: { failures: 1, cooldown_ms: COOLDOWN_MS },
    }),
  ]);
});

afterAll(async () => {
  await Promise.all((fakes ?? []).map((f) => f.close()));
});

beforeEach(() => resetFakes(fakes));

function eastOf(server: { services: TestServer['services'] }, model: string) {
  const d = server.services.router.deploymentsOf(model).find((x) => x.name === 'east');
  if (!d) throw new Error('no east');
  return d;
}

describe.skipIf(!REDIS_URL)('two instances on one Redis', () => {
  let cluster: Cluster;
  let a: ReturnType<typeof client>;
  let b: ReturnType<typeof client>;

  beforeAll(async () => {
    cluster = await startCluster(2, REDIS_URL ?? '', undefined, {
      MODELS_FILE: catalogue,
      ...keysOf(fakes),
      PLAN_PRO_RPM: '100000',
    });
    const { account } = await createAccountWithKey(cluster.first, { plan: 'pro' });
    const key = (await createKey(cluster.first, account.id, 'live')).key;
    const [first, second] = cluster.instances as [Cluster['instances'][0], Cluster['instances'][0]];
    a = client({ ...first, databaseUrl: undefined }, key);
    b = client({ ...second, databaseUrl: undefined }, key);
  });
  afterAll(() => cluster?.close());

  it("an upstream's 429 seen by one instance rests the deployment on the other", async () => {
    east.mode = '429';
    east.retryAfter = 30;
    expect((await ask(a, RESTED)).provider).toBe('west');
    expect(east.calls).toHaveLength(1);
    const other = cluster.instances[1] as Cluster['instances'][0];
    await waitFor(
      () => eastOf(other, RESTED).health.coolUntil > performance.now() + 20_000,
      'the rest shared',
    );
    east.mode = 'ok';
    for (let i = 0; i < 3; i++) expect((await ask(b, RESTED)).provider).toBe('west');
    // The instance that never saw the 429 never called east meanwhile.
    expect(east.calls).toHaveLength(1);
  });

  it('a breaker opened by one instance keeps the other away, and the probe that closes it closes it on both', async () => {
    east.mode = 'fail';
    expect((await ask(a, FRAGILE)).provider).toBe('west');
    const [first, second] = cluster.instances as [Cluster['instances'][0], Cluster['instances'][0]];
    expect(eastOf(first, FRAGILE).health.state).toBe('open');
    await waitFor(() => eastOf(second, FRAGILE).health.state === 'open', 'the open breaker shared');
    expect((await ask(b, FRAGILE)).provider).toBe('west');
    expect(east.calls).toHaveLength(1);

    // After the cooldown, instance a's next call is the probe; it answers, and b's breaker closes with it.
    east.mode = 'ok';
    await new Promise((r) => setTimeout(r, COOLDOWN_MS + 100));
    expect((await ask(a, FRAGILE)).provider).toBe('east');
    await waitFor(() => eastOf(second, FRAGILE).health.state === 'closed', 'the closed breaker shared');
    expect(east.calls).toHaveLength(2);
  });

  it('an instance started later reads the rest in force', async () => {
    east.mode = '429';
    east.retryAfter = 30;
    expect((await ask(a, RESTED)).provider).toBe('west');
    const late = await startCluster(1, REDIS_URL ?? '', undefined, {
      MODELS_FILE: catalogue,
      ...keysOf(fakes),
    });
    try {
      const instance = late.instances[0] as Cluster['instances'][0];
      // The rest in force (east may still rest from the first test: its end, not 30 s from now, which a slow
      // start of the late instance would have eaten into); the instances share this process's clock.
      const first = cluster.instances[0] as Cluster['instances'][0];
      const until = eastOf(first, RESTED).health.coolUntil;
      expect(until).toBeGreaterThan(performance.now() + 1_000);
      await waitFor(() => eastOf(instance, RESTED).health.coolUntil >= until - 100, 'caught up');
    } finally {
      await late.close();
    }
  });
});

describe('without a reachable Redis', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({
      env: {
        MODELS_FILE: catalogue,
        ...keysOf(fakes),
        REDIS_URL: 'redis://127.0.0.1:1',
        REDIS_COMMAND_TIMEOUT_MS: '100',
        PLAN_PRO_RPM: '100000',
      },
    });
  });
  afterAll(() => server?.close());

  it('decides from its own state: the 429 rests the deployment here, and calls go on', async () => {
    const { key } = await createAccountWithKey(server, { plan: 'pro', kind: 'live' });
    const sdk = client(server, key.key);
    east.mode = '429';
    east.retryAfter = 30;
    expect((await ask(sdk, RESTED)).provider).toBe('west');
    east.mode = 'ok';
    expect((await ask(sdk, RESTED)).provider).toBe('west');
    expect(east.calls).toHaveLength(1);
  });
});
