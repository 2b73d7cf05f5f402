import { rmSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exited, newDataDir, runCli, type ServerProcess, startServerProcess } from '../helpers/process';
import { type FaultUpstream, startFaultUpstream, writeFaultCatalogue } from './fault-upstreams';

/**
 * No timer or socket outlives a chat call that the client left or that timed out, checked in a real server
 * process: handle-probe.mjs (preloaded) knows every pending timer, ref'd or not, with where it was created,
 * the open socket descriptors and the active resources. Snapshots after warm-up calls are the baseline; after the faults, every timer
 * origin and resource kind must be back to at most its baseline count. The probe can plant a timer or a
 * socket, and the same check must then fail.
 */
const PROBE = join(import.meta.dirname, 'handle-probe.mjs');

interface Snapshot {
  timers: { kind: string; delay: number; origin: string }[];
  resources: Record<string, number>;
}

interface Probed {
  server: ServerProcess;
  probeUrl: string;
  keys: { live: string; test: string };
  dir: string;
}

let upstream: FaultUpstream;
const started: Probed[] = [];
beforeAll(async () => {
  upstream = await startFaultUpstream();
});
afterAll(async () => {
  for (const p of started) {
    p.server.child.kill('SIGKILL');
    await exited(p.server.child);
    rmSync(p.dir, { recursive: true, force: true });
  }
  await upstream?.close();
});

/** The operators' CLI on the embedded database of `dir` (before the server opens it). */
async function cli(dir: string, ...args: string[]): Promise<{ key: string }> {
  return (await runCli({ dataDir: dir }, args)) as { key: string };
}

/** A server process with the probe preloaded, f-* models on the fault upstream, a live and a test key. */
async function startProbed(env: Record<string, string>): Promise<Probed> {
  const dir = newDataDir('leaks');
  const email = 'leaks@example.com';
  await cli(dir, 'account', 'create', '--email', email, '--password', 'a long password', '--plan', 'pro');
  const live = (await cli(dir, 'key', 'create', '--account', email, '--name', 'l', '--kind', 'live')).key;
  const test = (await cli(dir, 'key', 'create', '--account', email, '--name', 't', '--kind', 'test')).key;
  const server = await startServerProcess(dir, {
    NODE_OPTIONS: `--import=${PROBE}`,
    LOG_LEVEL: 'warn',
    MODELS_FILE: writeFaultCatalogue(),
    OPENAI_BASE_URL: `${upstream.url}/v1`,
    OPENAI_API_KEY: 'sk-upstream-leaks-secret',
    UPSTREAM_RETRIES: '0',
    ...env,
  });
  const probeUrl = /handle-probe at (http:\/\/\S+)/.exec(server.output())?.[1];
  if (!probeUrl) throw new Error(`no probe:\n${server.output()}`);
  const probed = { server, probeUrl, keys: { live, test }, dir };
  started.push(probed);
  return probed;
}

async function snapshot(p: Probed): Promise<Snapshot> {
  return (await (await fetch(p.probeUrl)).json()) as Snapshot;
}

/**
 * PGlite (the embedded database) re-arms one interval timer of its own for Postgres' internal timeouts; it is
 * armed or not depending on the moment, so it is left out of the comparison.
 */
const IGNORED_ORIGINS = /@electric-sql\/pglite/;

/**
 * What `after` holds beyond `baseline`: timers by kind and origin (not delay: an idle pooled socket's
 * keep-alive timer is re-armed with another delay), resources and socket descriptors by kind.
 */
function leaks(baseline: Snapshot, after: Snapshot): string[] {
  const count = (s: Snapshot) => {
    const m = new Map<string, number>();
    for (const t of s.timers) {
      if (IGNORED_ORIGINS.test(t.origin)) continue;
      const k = `${t.kind} at ${t.origin}`;
      m.set(k, (m.get(k) ?? 0) + 1);
    }
    return m;
  };
  const before = count(baseline);
  const out: string[] = [];
  for (const [k, n] of count(after))
    if (n > (before.get(k) ?? 0)) out.push(`${n - (before.get(k) ?? 0)} × ${k}`);
  for (const [kind, n] of Object.entries(after.resources)) {
    if (n > (baseline.resources[kind] ?? 0)) out.push(`${n - (baseline.resources[kind] ?? 0)} × ${kind}`);
  }
  return out;
}

/** Polls until nothing is left over (work still finishing is not a leak) or the time is up; returns the rest. */
async function settled(p: Probed, baseline: Snapshot, ms = 8_000): Promise<string[]> {
  const deadline = Date.now() + ms;
  let rest = leaks(baseline, await snapshot(p));
  while (rest.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    rest = leaks(baseline, await snapshot(p));
  }
  return rest;
}

interface Outcome {
  status: number;
  text: string;
}

/**
 * A chat call on its own connection (`agent: false`: closed after the answer, so the client's keep-alive is
 * not mistaken for a leak). `leave` decides when the client disconnects: after some ms, or at the first bytes.
 */
function chat(
  p: Probed,
  call: { kind: 'live' | 'test'; model: string; stream: boolean },
  leave?: { afterMs?: number; atFirstBytes?: boolean },
): Promise<Outcome> {
  const url = new URL('/v1/chat/completions', p.server.url);
  const stream = call.stream;
  const body = JSON.stringify({
    model: call.model,
    messages: [{ role: 'user', content: 'Tell me a long story about timers and sockets' }],
    max_tokens: 60,
    stream,
  });
  return new Promise((resolve) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent: false,
        headers: { authorization: `Bearer ${p.keys[call.kind]}`, 'content-type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          text += d;
          if (leave?.atFirstBytes) req.destroy();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('close', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', () => resolve({ status: -1, text: '' }));
    if (leave?.afterMs !== undefined) setTimeout(() => req.destroy(), leave.afterMs);
    req.end(body);
  });
}

async function warmBaseline(p: Probed): Promise<Snapshot> {
  // Lazy pieces (tokenizer, the upstream pool's keep-alive socket, first-use timers) exist before the baseline.
  await chat(p, { kind: 'live', model: 'f-ok', stream: false });
  await chat(p, { kind: 'live', model: 'f-ok', stream: true });
  await chat(p, { kind: 'test', model: 'f-ok', stream: true }, { afterMs: 300 });
  await new Promise((r) => setTimeout(r, 1_500));
  return snapshot(p);
}

describe('no timers or sockets left behind (real server process, instrumented timers)', () => {
  let disconnects: Probed;
  let baseline: Snapshot;

  it('clients leaving mid-answer and mid-stream (upstream and simulator) leave nothing behind', async () => {
    // A long timeout: a deadline timer a call forgot would stay pending for a minute.
    disconnects = await startProbed({ SIMULATOR_TOKEN_DELAY_MS: '100', MODEL_TIMEOUT_MS: '60000' });
    baseline = await warmBaseline(disconnects);
    expect(baseline.timers.length).toBeGreaterThan(0);
    const closedBefore = upstream.closedEarly;
    const outcomes = await Promise.all([
      // The upstream says nothing: the client leaves while the whole answer is awaited.
      chat(disconnects, { kind: 'live', model: 'f-slow', stream: false }, { afterMs: 400 }),
      // The upstream drips a word every 50 ms: the client leaves mid-stream.
      chat(disconnects, { kind: 'live', model: 'f-drip', stream: true }, { afterMs: 600 }),
      // The simulator (test key) streams a token every 100 ms: the client leaves at the first bytes, and later.
      chat(disconnects, { kind: 'test', model: 'f-ok', stream: true }, { atFirstBytes: true }),
      chat(disconnects, { kind: 'test', model: 'f-ok', stream: true }, { afterMs: 700 }),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual([-1, 200, 200, 200]);
    for (const o of outcomes) expect(o.text).not.toContain('[DONE]');
    expect(await settled(disconnects, baseline)).toEqual([]);
    expect(upstream.closedEarly).toBe(closedBefore + 2);
  }, 120_000);

  it('the check fails when a timer or a socket is left behind (planted by the probe)', async () => {
    await fetch(`${disconnects.probeUrl}/plant-timer`, { method: 'POST' });
    expect(await settled(disconnects, baseline, 1_000)).toEqual(['1 × timeout at planted by the probe']);
    const fresh = await snapshot(disconnects);
    await fetch(`${disconnects.probeUrl}/plant-socket`, { method: 'POST' });
    expect((await settled(disconnects, fresh, 1_000)).join()).toMatch(/\d+ × socket descriptors/);
  }, 30_000);

  it('calls that time out (before and during a stream) leave nothing behind', async () => {
    // The timeout is 0.7 s; the upstream's f-slow says nothing, the simulator waits 1.5 s a token.
    const timeouts = await startProbed({ SIMULATOR_TOKEN_DELAY_MS: '1500', MODEL_TIMEOUT_MS: '700' });
    const base = await warmBaseline(timeouts);
    const [whole, before, during] = await Promise.all([
      chat(timeouts, { kind: 'live', model: 'f-slow', stream: false }),
      chat(timeouts, { kind: 'live', model: 'f-slow', stream: true }),
      chat(timeouts, { kind: 'test', model: 'f-ok', stream: true }),
    ]);
    expect([whole.status, before.status, during.status]).toEqual([500, 500, 200]);
    for (const o of [whole, before, during]) expect(o.text).toContain('model_timeout');
    expect(await settled(timeouts, base)).toEqual([]);
  }, 120_000);
});
