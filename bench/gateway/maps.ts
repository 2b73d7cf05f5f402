/**
 * How many V8 hidden classes ("maps") each kind of request makes once warm. A request path in steady state
 * should make none: a map made per request (an object built by a leading spread and then extended, a
 * generator function or class made per call, an object used as a prototype) also leaves a descriptor array
 * and IC handlers in the old generation and turns the property loads that see it megamorphic.
 *   cd server && npx tsx ../bench/gateway/maps.ts
 * Runs Tessera and the fake upstream in a child process with V8's --log-maps (embedded database), sends each
 * request kind 300 times after 200 warm-up calls, then reads the child's V8 log and prints maps per request. The load is sequential, so the client's own paths are
 * as warm as the server's; the same client runs the /healthz row, which shows their floor.
 */
import { spawnSync } from 'node:child_process';
import { createReadStream, mkdtempSync, readdirSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServer } from '../../server/src/server';
import { startFakeOpenAi } from '../../server/test/helpers/fake-upstreams';
import { benchKey, benchServices } from './setup';

interface Window {
  name: string;
  from: number;
  to: number;
  calls: number;
}

if (!process.argv.includes('--child')) {
  // One log per isolate (tsx's module hooks run in one of their own); the report reads the one with the probe.
  const logs = mkdtempSync(join(tmpdir(), 'tessera-maps-log-'));
  const child = spawnSync(
    process.execPath,
    [
      '--log-maps',
      '--no-log-maps-details',
      `--logfile=${join(logs, 'v8.log')}`,
      '--import',
      'tsx',
      process.argv[1] ?? '',
      '--child',
    ],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 26 },
  );
  const result = child.stdout.split('\n').find((l) => l.startsWith('{"mark"'));
  if (child.status !== 0 || !result) throw new Error(`the probe failed (exit ${child.status})`);
  for (const file of readdirSync(logs)) {
    if (await report(join(logs, file), JSON.parse(result) as { mark: number; windows: Window[] }))
      process.exit(0);
  }
  throw new Error('no calibration burst in the V8 logs');
}

const upstream = await startFakeOpenAi();
const { services, accountId } = await benchServices(upstream.url, { LOG_LEVEL: 'warn' });
const live = { key: await benchKey(services, accountId, 'live') };
const test = { key: await benchKey(services, accountId, 'test') };
const running = await startServer(services, { port: 0, host: '127.0.0.1', webDist: '/nonexistent' });
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

interface Kind {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  key?: string;
  body?: unknown;
}
const chat = { model: 'bench-model', messages: [{ role: 'user', content: 'Say hello to the benchmark.' }] };
const kinds: Kind[] = [
  { name: 'GET /healthz (floor)', method: 'GET', path: '/healthz' },
  {
    name: 'chat, live key, upstream',
    method: 'POST',
    path: '/v1/chat/completions',
    key: live.key,
    body: chat,
  },
  {
    name: 'chat stream, live key, upstream',
    method: 'POST',
    path: '/v1/chat/completions',
    key: live.key,
    body: { ...chat, stream: true, stream_options: { include_usage: true } },
  },
  {
    name: 'chat, test key, simulator',
    method: 'POST',
    path: '/v1/chat/completions',
    key: test.key,
    body: chat,
  },
  {
    name: 'chat stream, test key, simulator',
    method: 'POST',
    path: '/v1/chat/completions',
    key: test.key,
    body: { ...chat, stream: true },
  },
  {
    name: 'chat 400 (bad temperature)',
    method: 'POST',
    path: '/v1/chat/completions',
    key: live.key,
    body: { ...chat, temperature: 9 },
  },
  {
    name: 'chat 404 (unknown model)',
    method: 'POST',
    path: '/v1/chat/completions',
    key: live.key,
    body: { ...chat, model: 'nope' },
  },
  {
    name: '401 (unknown key)',
    method: 'GET',
    path: '/v1/models',
    key: 'sk_live_unknownunknownunknownunknown',
  },
  { name: '404 (unknown URL)', method: 'GET', path: '/v1/nothing', key: live.key },
  { name: 'GET /v1/models', method: 'GET', path: '/v1/models', key: live.key },
  { name: 'GET /v1/models/{id}', method: 'GET', path: '/v1/models/bench-model', key: live.key },
  {
    name: 'POST /api/code/analyze',
    method: 'POST',
    path: '/api/code/analyze',
    key: live.key,
    body: { language: 'python', code: 'def f(x):\n    if x > 1:\n        return eval(x)\n    return 0\n' },
  },
  {
    name: 'POST /api/search',
    method: 'POST',
    path: '/api/search',
    key: live.key,
    body: { query: 'tessera gateway' },
  },
  {
    name: 'POST /graphql (usage)',
    method: 'POST',
    path: '/graphql',
    key: live.key,
    body: { query: '{ usage(period: "24h") { totals { requests } } }' },
  },
];

async function send(kind: Kind): Promise<void> {
  const body = kind.body === undefined ? undefined : JSON.stringify(kind.body);
  const headers: Record<string, string> = {};
  if (kind.key) headers.authorization = `Bearer ${kind.key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  await new Promise<void>((resolve, reject) => {
    const req = request(`${running.url}${kind.path}`, { agent, method: kind.method, headers }, (res) => {
      res.resume();
      res.on('end', resolve);
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

await send({
  name: 'index',
  method: 'POST',
  path: '/api/documents',
  key: live.key,
  body: { documents: [{ title: 'Tessera', text: 'The tessera gateway relays chat completions.' }] },
});

// V8's log counts time from its own start; a burst of maps made here at a known time lines the two clocks up.
function calibrate(): number {
  const at = performance.now();
  const made: object[] = [];
  for (let i = 0; i < 100; i++) {
    // A class made anew has a map of its own: a burst of maps named Calibrate, at a known time.
    const Calibrate = class Calibrate {};
    made.push(new Calibrate());
  }
  return made.length > 0 ? at : 0;
}

const windows: Window[] = [];
const mark = calibrate();
await sleep(200);
const calls = Number(process.env.MAPS_CALLS ?? 300);
// MAPS_ONLY=<text>: only the kinds whose name contains it.
for (const kind of kinds.filter((k) => k.name.includes(process.env.MAPS_ONLY ?? ''))) {
  for (let i = 0; i < Math.min(200, calls); i++) await send(kind);
  await sleep(100);
  const from = performance.now();
  for (let i = 0; i < calls; i++) await send(kind);
  windows.push({ name: kind.name, from, to: performance.now(), calls });
  await sleep(100);
}
process.stdout.write(`${JSON.stringify({ mark, windows })}\n`);
await running.close(2_000);
await upstream.close();
agent.destroy();
process.exit(0);

/** Prints the table from `log` if it is the probe's isolate's log (it holds the calibration burst). */
async function report(log: string, { mark, windows }: { mark: number; windows: Window[] }): Promise<boolean> {
  // Only the map events: the log also holds every code object V8 made, hundreds of MB.
  const events: string[][] = [];
  for await (const line of createInterface({ input: createReadStream(log) })) {
    if (line.startsWith('map,')) events.push(line.split(','));
  }
  const first = events.find((e) => e[1] === 'InitialMap' && e[9] === 'Calibrate');
  if (!first) return false;
  const offset = Number(first[2]) / 1000 - mark;
  console.log('| request | maps per request | most made for |');
  console.log('|---|---|---|');
  for (const w of windows) {
    const inside = events.filter((e) => {
      const t = Number(e[2]) / 1000 - offset;
      return t >= w.from && t <= w.to;
    });
    const why = new Map<string, number>();
    for (const e of inside) {
      const reason = `${e[1]} ${e[8]} ${e[9]}`.trim();
      why.set(reason, (why.get(reason) ?? 0) + 1);
    }
    const top = [...why]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 3)
      .map(([k, n]) => `${k} (${n})`)
      .join('; ');
    console.log(`| ${w.name} | ${(inside.length / w.calls).toFixed(2)} | ${top} |`);
    // MAPS_RAW=1: the events themselves (type, time, maps, code address and position, reason, property).
    if (process.env.MAPS_RAW) for (const e of inside.slice(0, 40)) console.log(`    ${e.join(',')}`);
  }
  return true;
}
