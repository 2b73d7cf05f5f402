/**
 * Tessera's CPU a call, this checkout against another (a git worktree of an earlier commit, with its
 * dependencies installed), interleaved in the same run: closed loops of a few calls at a time against each
 * server in turn, so that the machine's noise falls on both alike. Prints the median and every round.
 *   git worktree add /tmp/old <commit> && (cd /tmp/old && npx pnpm@10 install --frozen-lockfile)
 *   cd server && TEST_DATABASE_URL=postgres://… npx tsx ../bench/gateway/ab.ts --against=/tmp/old [--plain] [--rounds=12]
 *     [--model=bench-routed]   (the model called: `bench-model` by default, `bench-routed` for routing's path)
 *     [--features]   (run.ts's --features: `bench-full`, routed and priced, by a key held to two money budgets)
 */
import { pathToFileURL } from 'node:url';
import { processCpu, SERVER_NODE_ARGS, start } from './children';
import { call, type Target } from './load';

const args = process.argv.slice(2);
const against = args.find((a) => a.startsWith('--against='))?.split('=')[1];
if (!against) throw new Error('usage: ab.ts --against=<other checkout> [--plain] [--rounds=12]');
const stream = !args.includes('--plain');
const rounds = Number(args.find((a) => a.startsWith('--rounds='))?.split('=')[1] ?? 12);
const CALLS = 3_000;
const features = args.includes('--features');
const model = features
  ? 'bench-full'
  : (args.find((a) => a.startsWith('--model='))?.split('=')[1] ?? 'bench-model');
const serverArgs = (url: string) => (features ? [url, '--features'] : [url]);

// The other checkout's own starter, so that its bench/gateway/tessera.ts (and its server code) runs.
const other = (await import(pathToFileURL(`${against}/bench/gateway/children.ts`).href)) as {
  start: typeof start;
};
const upstream = await start('./upstream.ts');
const url = upstream.info.url ?? '';
const servers = {
  other: await other.start('./tessera.ts', serverArgs(url), SERVER_NODE_ARGS),
  this: await start('./tessera.ts', serverArgs(url), SERVER_NODE_ARGS),
};
type Server = (typeof servers)['this'];
const target = (x: Server): Target => ({
  url: `${x.info.url}/v1/chat/completions`,
  headers: { authorization: `Bearer ${(features ? x.info.budgetedKey : x.info.key) ?? ''}` },
  model,
});

async function closedLoop(t: Target, n: number): Promise<void> {
  let sent = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (sent++ < n) await call(t, stream);
    }),
  );
}

const cpu: Record<keyof typeof servers, number[]> = { other: [], this: [] };
try {
  // Warm both (connections, JIT, caches).
  for (const x of Object.values(servers)) await closedLoop(target(x), 6_000);
  for (let r = 0; r < rounds; r++) {
    // Alternating which goes first.
    const order: (keyof typeof servers)[] = r % 2 ? ['other', 'this'] : ['this', 'other'];
    for (const name of order) {
      const x = servers[name];
      await closedLoop(target(x), 500);
      const before = processCpu(x.child.pid);
      await closedLoop(target(x), CALLS);
      const after = processCpu(x.child.pid);
      cpu[name].push(((after.user + after.system - before.user - before.system) / CALLS) * 1000);
    }
  }
  const median = (v: number[]) => [...v].sort((a, b) => a - b)[v.length >> 1]?.toFixed(0);
  const all = (v: number[]) => v.map((x) => x.toFixed(0)).join(' ');
  console.log(
    `${stream ? 'streamed' : 'non-streamed'}, Tessera's CPU a call (µs, user + system), median of ${rounds} rounds: this checkout ${median(cpu.this)}, ${against} ${median(cpu.other)}`,
  );
  console.log(`  this: ${all(cpu.this)}\n  other: ${all(cpu.other)}`);
} finally {
  for (const x of [servers.other, servers.this, upstream]) x.child.kill('SIGTERM');
}
