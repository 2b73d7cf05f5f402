/**
 * What routing, cost and budgets cost: Tessera's CPU a call and closed-loop latency for a model served by two
 * deployments (`bench-routed`, weighted), and for a routed and priced model called with a key held to money
 * budgets (`bench-full`: every call costed; `priced` with the bench key, `full` with setup.ts's budgeted key, its
 * calls reserved against two budgets before they run and settled after), against the same model unrouted (`bench-model`), all to the same fake upstream, on one
 * Tessera process, interleaved round by round so that the machine's noise falls on each alike.
 *   cd server && TEST_DATABASE_URL=postgres://… npx tsx ../bench/gateway/routing.ts [--plain] [--rounds=8]
 */
import { processCpu, SERVER_NODE_ARGS, start } from './children';
import { call, percentile, type Target } from './load';

const args = process.argv.slice(2);
const stream = !args.includes('--plain');
const rounds = Number(args.find((a) => a.startsWith('--rounds='))?.split('=')[1] ?? 8);
const CALLS = 2_000;

const upstream = await start('./upstream.ts');
const tessera = await start('./tessera.ts', [upstream.info.url ?? '', '--features'], SERVER_NODE_ARGS);
const target = (model: string, key = tessera.info.key): Target => ({
  url: `${tessera.info.url}/v1/chat/completions`,
  headers: { authorization: `Bearer ${key}` },
  model,
});
const models = {
  unrouted: target('bench-model'),
  routed: target('bench-routed'),
  priced: target('bench-full'),
  full: target('bench-full', tessera.info.budgetedKey),
};

/** `n` calls, 4 at a time; their latencies (ms) and how many failed. */
async function closedLoop(t: Target, n: number): Promise<{ latencies: number[]; errors: number }> {
  let sent = 0;
  const latencies: number[] = [];
  let errors = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (sent++ < n) {
        const ms = await call(t, stream);
        if (ms === undefined) errors++;
        else latencies.push(ms);
      }
    }),
  );
  return { latencies, errors };
}

type Name = keyof typeof models;
const names = Object.keys(models) as Name[];
const cpu = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<Name, number[]>;
const p50 = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<Name, number[]>;
const p99 = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<Name, number[]>;
let errors = 0;
try {
  for (const t of Object.values(models)) await closedLoop(t, 4_000);
  for (let r = 0; r < rounds; r++) {
    // Each variant first, in the middle and last in turn.
    const order = names.map((_, i) => names[(i + r) % names.length] as Name);
    for (const name of order) {
      await closedLoop(models[name], 300);
      const before = processCpu(tessera.child.pid);
      const result = await closedLoop(models[name], CALLS);
      const after = processCpu(tessera.child.pid);
      errors += result.errors;
      cpu[name].push(((after.user + after.system - before.user - before.system) / CALLS) * 1000);
      const sorted = result.latencies.sort((a, b) => a - b);
      p50[name].push(percentile(sorted, 50));
      p99[name].push(percentile(sorted, 99));
    }
  }
  const median = (v: number[]) => [...v].sort((a, b) => a - b)[v.length >> 1] ?? Number.NaN;
  console.log(
    `${stream ? 'streamed (time to first token)' : 'non-streamed'}, medians of ${rounds} rounds × ${CALLS} calls, 4 at a time, ${errors} errors:`,
  );
  for (const name of names) {
    console.log(
      `  ${name.padEnd(8)} CPU a call ${median(cpu[name]).toFixed(0)} µs (rounds ${cpu[name].map((x) => x.toFixed(0)).join(' ')}), latency p50 ${median(p50[name]).toFixed(2)} ms, p99 ${median(p99[name]).toFixed(2)} ms`,
    );
  }
} finally {
  for (const x of [tessera, upstream]) x.child.kill('SIGTERM');
}
