/**
 * Bytes allocated a call on the main thread's heap (V8's sampling heap profiler, objects that died young
 * included), of Tessera and of the bare relay (floor.ts), and where Tessera's go: the functions and source files
 * that allocate most, in bytes a call. Every byte allocated is work for the young generation's scavenges, which
 * pause the event loop. Unlike time, this hardly moves with the machine's load, so a change is measured by
 * running it before and after.
 *   cd server && TEST_DATABASE_URL=postgres://… npx tsx ../bench/gateway/alloc.ts [--calls=5000] [--stream]
 *     [--top=30] [--callers] [--keep=<dir>] [Tessera's options: --no-allowance, --log-level=warn, --env=NAME=value]
 * A closed loop of 4 calls at a time warms each process (JIT, caches, connections); the profile then holds
 * exactly the next --calls calls (alloc-window.ts). Sampling every 4 KiB on average: a figure a call is good to a
 * few per cent at 5,000 calls. --callers: each function's bytes apart by the function that called it. --keep=<dir> keeps the raw profiles (Chrome DevTools opens them as .heapprofile).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { SERVER_NODE_ARGS, start } from './children';
import { call, type Target } from './load';

const args = process.argv.slice(2);
const option = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const calls = Number(option('calls') ?? 5_000);
const top = Number(option('top') ?? 30);
const stream = args.includes('--stream');
const keep = option('keep');
const callers = args.includes('--callers');
const tesseraOptions = args.filter(
  (a) => a === '--no-allowance' || a.startsWith('--log-level=') || a.startsWith('--env='),
);

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  selfSize: number;
  children: ProfileNode[];
}
type Child = Awaited<ReturnType<typeof start>>;

const dir = keep ?? mkdtempSync(join(tmpdir(), 'tessera-alloc-'));
mkdirSync(dir, { recursive: true });
const files = { tessera: join(dir, 'tessera.heapprofile'), floor: join(dir, 'floor.heapprofile') };
for (const f of Object.values(files)) rmSync(f, { force: true });
const upstream = await start('./upstream.ts');
const url = upstream.info.url ?? '';
const tessera = await start(
  './tessera.ts',
  [url, `--alloc-prof=${files.tessera}`, '--alloc-window', ...tesseraOptions],
  SERVER_NODE_ARGS,
);
const floor = await start('./floor.ts', [url, `--alloc-prof=${files.floor}`]);
// The built bundle's source map, to name the server's files (read now: the bundle's folder goes at exit).
const bundle = tessera.child.spawnargs.find((a) => a.endsWith('tessera.js'));
const map = bundle ? new SourceMap(JSON.parse(readFileSync(`${bundle}.map`, 'utf8'))) : undefined;

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function closedLoop(target: Target, n: number): Promise<void> {
  let sent = 0;
  let failed = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (sent++ < n) if ((await call(target, stream)) === undefined) failed += 1;
    }),
  );
  if (failed > 0) throw new Error(`${failed} calls failed`);
}
/** The profile of `calls` calls to `x`, after a warm-up. */
async function profile(x: Child, file: string): Promise<ProfileNode> {
  const target: Target = {
    url: `${x.info.url}/v1/chat/completions`,
    headers: { authorization: `Bearer ${x.info.key}` },
    model: 'bench-model',
  };
  await closedLoop(target, Math.max(4_000, calls));
  x.child.kill('SIGUSR2');
  await pause(200);
  await closedLoop(target, calls);
  x.child.kill('SIGUSR2');
  for (let i = 0; i < 100 && !existsSync(file); i++) await pause(100);
  // Written in one call; a moment for it to be whole.
  await pause(300);
  return (JSON.parse(readFileSync(file, 'utf8')) as { head: ProfileNode }).head;
}

function where(f: ProfileNode['callFrame']): string {
  if (bundle && f.url.endsWith('tessera.js') && map) {
    const entry = map.findEntry(f.lineNumber, f.columnNumber) as { originalSource?: string };
    if (entry.originalSource)
      return relative(process.cwd(), new URL(entry.originalSource, `file://${bundle}`).pathname);
  }
  return f.url.replace(/^.*node_modules\/(\.pnpm\/[^/]+\/node_modules\/)?/, '') || '(native)';
}

function totals(head: ProfileNode) {
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  let total = 0;
  const named = (f: ProfileNode['callFrame']) => `${f.functionName || '(anonymous)'} ${where(f)}`;
  const walk = (n: ProfileNode, caller?: ProfileNode) => {
    if (n.selfSize > 0) {
      const source = where(n.callFrame);
      const name =
        callers && caller ? `${named(n.callFrame)} < ${named(caller.callFrame)}` : named(n.callFrame);
      total += n.selfSize;
      byFunction.set(name, (byFunction.get(name) ?? 0) + n.selfSize);
      byFile.set(source, (byFile.get(source) ?? 0) + n.selfSize);
    }
    for (const c of n.children) walk(c, n);
  };
  walk(head);
  return { total, byFunction, byFile };
}

try {
  const floorTotal = totals(await profile(floor, files.floor)).total;
  const { total, byFunction, byFile } = totals(await profile(tessera, files.tessera));
  const perCall = (bytes: number) => (bytes / calls).toFixed(0).padStart(7);
  const share = (bytes: number) => `${((bytes / total) * 100).toFixed(1).padStart(5)} %`;
  const list = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, v]) => `${perCall(v)} ${share(v)}  ${k}`)
      .join('\n');
  console.log(
    `${stream ? 'streamed' : 'non-streamed'}, bytes allocated a call (${calls} calls): Tessera ${(total / calls).toFixed(0)}, relay ${(floorTotal / calls).toFixed(0)}`,
  );
  console.log(`\nTessera, bytes a call by function:\n${list(byFunction)}`);
  console.log(`\nTessera, bytes a call by file:\n${list(byFile)}`);
} finally {
  for (const x of [tessera, floor, upstream]) x.child.kill('SIGTERM');
  if (!keep) rmSync(dir, { recursive: true, force: true });
}
