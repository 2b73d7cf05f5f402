/**
 * What three server instances on one Redis share of a deployment, through the real servers and the openai SDK
 * against fake upstreams on loopback: its own requests and tokens per minute (`rpm`, `tpm`), counted by the
 * rate limiter's Redis script as the keys' limits are, exactly across instances (the limiter's clock held still,
 * so that nothing refills while the calls run); and the one probe of a half-open breaker, which a Redis lease gives
 * to one instance per cooldown.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { writeCatalogue } from '../helpers/chat-setup';
import { type Cluster, startCluster, waitFor } from '../helpers/cluster';
import { type FakeDeployment, startFakeDeployment } from '../helpers/fake-deployments';
import { createAccountWithKey, createKey } from '../helpers/fixtures';
import { client, keysOf, messages, resetFakes, routedEntry } from './setup';

const REDIS_URL = process.env.TEST_REDIS_URL;
// Redis outlives a run (quotas, leases): each run's models are its own.
const RUN = Math.random().toString(36).slice(2, 8);
const RPM_MODEL = `rpm-${RUN}`;
const TPM_MODEL = `tpm-${RUN}`;
const FRAGILE = `fragile-${RUN}`;
const RPM = 4;
const TPM = 50;
const COOLDOWN_MS = 1_500;

let east: FakeDeployment;
let west: FakeDeployment;
let fakes: FakeDeployment[];
let catalogue: string;

/** east has the quota (listed first: the ordered strategy tries it first); west takes what it cannot. */
function quotaEntry(id: string, quota: Record<string, number>): Record<string, unknown> {
  const entry = routedEntry(id, [{ fake: east }, { fake: west }], {
    breaker: { failures: 1_000, min_requests: 1_000 },
  });
  const [first, ...rest] = entry.deployments as Record<string, unknown>[];
  return { ...entry, deployments: [{ ...first, ...quota }, ...rest] };
}

beforeAll(async () => {
  [east, west] = (await Promise.all(['east', 'west'].map(startFakeDeployment))) as [
    FakeDeployment,
    FakeDeployment,
  ];
  fakes = [east, west];
  catalogue = writeCatalogue([
    quotaEntry(RPM_MODEL, { rpm: RPM }),
    quotaEntry(TPM_MODEL, { tpm: TPM }),
    routedEntry(FRAGILE, [{ fake: east }, { fake: west }], {
      breaker: { failures: 1, cooldown_ms: COOLDOWN_MS },
    }),
  ]);
});

afterAll(async () => {
  await Promise.all((fakes ?? []).map((f) => f.close()));
});

beforeEach(() => resetFakes(fakes));

describe.skipIf(!REDIS_URL)("a deployment's quota and probe, shared by three instances on one Redis", () => {
  let cluster: Cluster;
  let sdks: ReturnType<typeof client>[];
  let nowMs = Date.UTC(2026, 10, 30, 12, 0, 0);

  beforeAll(async () => {
    cluster = await startCluster(
      3,
      REDIS_URL ?? '',
      { now: () => nowMs },
      {
        MODELS_FILE: catalogue,
        ...keysOf(fakes),
        PLAN_PRO_RPM: '100000',
        // The machine is shared: a starved Redis must not send instances to their per-instance fallback.
        REDIS_COMMAND_TIMEOUT_MS: '2000',
      },
    );
    const { account } = await createAccountWithKey(cluster.first, { plan: 'pro' });
    const key = (await createKey(cluster.first, account.id, 'live')).key;
    sdks = cluster.instances.map((i) => client({ ...i, databaseUrl: undefined }, key));
  }, 60_000);
  afterAll(() => cluster?.close());

  /** `n` calls at once, round-robin over the instances: who answered each. */
  async function burst(model: string, n: number): Promise<string[]> {
    return Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const sdk = sdks[i % sdks.length] as ReturnType<typeof client>;
        const { response } = await sdk.chat.completions.create({ model, messages }).withResponse();
        return response.headers.get('x-tessera-provider') ?? '';
      }),
    );
  }

  it('rpm: 15 calls at once over three instances, exactly 4 sent to the deployment; one more as the quota refills', async () => {
    const answered = await burst(RPM_MODEL, 15);
    expect(answered.filter((p) => p === 'east')).toHaveLength(RPM);
    expect(answered.filter((p) => p === 'west')).toHaveLength(15 - RPM);
    expect(east.calls).toHaveLength(RPM);
    // GCRA: one request's room every 60 s / 4 = 15 s. An instance that saw east refused leaves it out until
    // then; a quarter of a minute later exactly one more call of the next six goes to it.
    nowMs += 15_000;
    const next = await burst(RPM_MODEL, 6);
    expect(next.filter((p) => p === 'east')).toHaveLength(1);
    expect(east.calls).toHaveLength(RPM + 1);
  });

  it('tpm: a call holds prompt + cap (up to the whole quota) and gives back what it did not use, on any instance', async () => {
    // max_tokens 100 is more than the whole quota of 50: the call takes all of it, then its usage (9 + 3
    // tokens, the fake's) gives back 38. 12 of 50 are then spent: the next call (50 again) has no room anywhere.
    const ask = (i: number) =>
      (sdks[i % sdks.length] as ReturnType<typeof client>).chat.completions
        .create({ model: TPM_MODEL, messages, max_tokens: 100 })
        .withResponse()
        .then(({ response }) => response.headers.get('x-tessera-provider'));
    expect(await ask(0)).toBe('east');
    for (let i = 1; i <= 4; i++) expect(await ask(i)).toBe('west');
    expect(east.calls).toHaveLength(1);
    // The 12 used come back at 50 a minute: after 60 s · 12 / 50 = 14.4 s the quota is whole again, not before.
    nowMs += 14_000;
    expect(await ask(5)).toBe('west');
    nowMs += 400;
    expect(await ask(6)).toBe('east');
    expect(east.calls).toHaveLength(2);
  });

  it("a half-open breaker gets one probe per cooldown across the instances, and the probe's answer closes it everywhere", async () => {
    east.mode = 'fail';
    // One failure opens east's breaker (on the instance that saw it, then on the others through Redis).
    expect(await burst(FRAGILE, 1)).toEqual(['west']);
    expect(east.calls).toHaveLength(1);
    const states = () =>
      cluster.instances.map(
        (i) => i.services.router.deploymentsOf(FRAGILE).find((d) => d.name === 'east')?.health.state,
      );
    await waitFor(() => states().every((s) => s === 'open'), 'the open breaker shared');

    // After the cooldown, nine calls at once over the three instances: one probe reaches east (and fails);
    // every other call goes to west, no instance sending a probe of its own.
    await new Promise((r) => setTimeout(r, COOLDOWN_MS + 100));
    const probed = await burst(FRAGILE, 9);
    expect(east.calls).toHaveLength(2);
    expect(probed.filter((p) => p === 'west')).toHaveLength(9);

    // The failed probe kept its lease for the new cooldown; then the next probe answers and closes it on all.
    east.mode = 'ok';
    await waitFor(() => states().every((s) => s === 'open'), 'reopened everywhere');
    await new Promise((r) => setTimeout(r, COOLDOWN_MS + 100));
    const closing = await burst(FRAGILE, 3);
    expect(closing).toContain('east');
    await waitFor(() => states().every((s) => s === 'closed'), 'the closed breaker shared');
  });
});
