/**
 * What long prompts cost everyone else on the same Tessera process: the latency of short non-streamed calls at
 * a fixed load, alone and while long prompts arrive, in alternating phases of the same run.
 *   cd server && npx tsx ../bench/gateway/long-prompts.ts [--rps=200] [--seconds=10] [--rounds=2] [--chars=400000] [--every=500]
 * --chars: each long prompt's length (made-up words the tokenizer's piece memory cannot shortcut, the worst
 * case); --every: milliseconds between long prompts. Tessera runs as in run.ts (its own process, live key, the
 * fake upstream; TEST_DATABASE_URL=postgres://… for Postgres); the long prompts go to `bench-long`, a model
 * with a context of 1M tokens, so they are counted to the end and answered.
 */
import { variedText } from '../../server/test/helpers/text';
import { SERVER_NODE_ARGS, start } from './children';
import { call, failures, percentile, runPhase, type Target } from './load';

const option = (name: string, fallback: number) =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const rps = option('rps', 200);
const seconds = option('seconds', 10);
const rounds = option('rounds', 2);
const chars = option('chars', 400_000);
const every = option('every', 500);

const upstream = await start('./upstream.ts');
process.on('unhandledRejection', (err) => {
  console.error(err);
  upstream.child.kill('SIGTERM');
  process.exit(1);
});
const tessera = await start('./tessera.ts', [upstream.info.url ?? ''], SERVER_NODE_ARGS);
const short: Target = {
  url: `${tessera.info.url}/v1/chat/completions`,
  headers: { authorization: `Bearer ${tessera.info.key}` },
  model: 'bench-model',
};
// A few different long prompts, taken in turn.
const longs: Target[] = [1, 2, 3, 4].map((seed) => ({
  ...short,
  model: 'bench-long',
  content: variedText(chars, seed),
}));

/** Short calls at `rps` for `seconds`, with a long prompt every `every` ms if `withLong`. */
async function phase(withLong: boolean): Promise<{ short: number[]; long: number[]; errors: number }> {
  const long: Promise<number | undefined>[] = [];
  let next = 0;
  const timer = withLong
    ? setInterval(() => {
        long.push(call(longs[next++ % longs.length] as Target, false));
      }, every)
    : undefined;
  const result = await runPhase(short, false, rps, seconds);
  clearInterval(timer);
  const longLatencies = (await Promise.all(long)).filter((l): l is number => l !== undefined);
  return {
    short: result.latencies,
    long: longLatencies.sort((a, b) => a - b),
    errors: result.errors + long.length - longLatencies.length,
  };
}

const fmt = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '–');
console.log(
  `short calls at ${rps} rps for ${seconds} s a phase; long prompts of ${chars.toLocaleString('en')} characters every ${every} ms`,
);
console.log('| round | long prompts | short p50 / p99 / max (ms) | long p50 / max (ms) | errors |');
console.log('|---|---|---|---|---|');
try {
  // Warm the JIT, the connections and the tokenizer on both kinds of call.
  await phase(true);
  for (let round = 1; round <= rounds; round++) {
    for (const withLong of [false, true]) {
      const r = await phase(withLong);
      const last = r.short[r.short.length - 1] ?? Number.NaN;
      console.log(
        `| ${round} | ${withLong ? `${r.long.length}` : 'none'} | ${fmt(percentile(r.short, 50))} / ${fmt(percentile(r.short, 99))} / ${fmt(last)} | ${withLong ? `${fmt(percentile(r.long, 50))} / ${fmt(r.long[r.long.length - 1] ?? Number.NaN)}` : '–'} | ${r.errors} |`,
      );
    }
  }
  if (failures.size > 0) console.log(`failures: ${JSON.stringify(Object.fromEntries(failures))}`);
} finally {
  tessera.child.kill('SIGTERM');
  upstream.child.kill('SIGTERM');
}
