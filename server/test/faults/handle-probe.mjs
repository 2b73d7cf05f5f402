/**
 * Preloaded into a server process (`NODE_OPTIONS=--import=…/handle-probe.mjs`) by handle-leaks.test.ts; the
 * product is not changed. It wraps setTimeout/setInterval (global and `node:timers`) so that every pending timer
 * is known, ref'd or unref'd (process.getActiveResourcesInfo() only lists ref'd ones, and the chat deadline and
 * keep-alive timers are unref'd), and answers GET / on its own loopback port with the pending timers (where each
 * was created) and the active resources. POST /plant-timer and /plant-socket leave a timer or a socket behind on
 * purpose, so that the test can show its check fails on a leak.
 */
import { readdirSync, readlinkSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { syncBuiltinESMExports } from 'node:module';
import timers from 'node:timers';

const pending = new Map();
const original = {
  setTimeout: timers.setTimeout,
  setInterval: timers.setInterval,
  clearTimeout: timers.clearTimeout,
  clearInterval: timers.clearInterval,
};

/** The first frame in the product (or a dependency): where the timer was created. */
function origin() {
  const frames = (new Error().stack ?? '').split('\n').slice(3);
  const own =
    frames.find((f) => f.includes('/server/src/')) ?? frames.find((f) => f.includes('node_modules'));
  return (own ?? frames[0] ?? 'unknown')
    .trim()
    .replace(/^at /, '')
    .replace(/\(file:\/\/|\)$/g, '');
}

function track(kind, fn, delay, args) {
  const entry = { kind, delay, origin: origin() };
  let timer;
  const callback =
    typeof fn === 'function' && kind === 'timeout'
      ? (...a) => {
          pending.delete(timer);
          return fn(...a);
        }
      : fn;
  timer = (kind === 'timeout' ? original.setTimeout : original.setInterval)(callback, delay, ...args);
  pending.set(timer, entry);
  return timer;
}

function forget(timer) {
  if (timer === undefined || timer === null) return;
  if (typeof timer === 'object') {
    pending.delete(timer);
    return;
  }
  // A timer cleared by its numeric id.
  for (const t of pending.keys()) if (+t === Number(timer)) pending.delete(t);
}

const wrapped = {
  setTimeout: (fn, delay, ...args) => track('timeout', fn, delay, args),
  setInterval: (fn, delay, ...args) => track('interval', fn, delay, args),
  clearTimeout: (t) => {
    forget(t);
    original.clearTimeout(t);
  },
  clearInterval: (t) => {
    forget(t);
    original.clearInterval(t);
  },
};
Object.assign(timers, wrapped);
Object.assign(globalThis, wrapped);
syncBuiltinESMExports();

const planted = [];

/** Open socket descriptors, ref'd or not (undici unrefs idle pooled sockets, which active resources omit). */
function socketDescriptors() {
  let n = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`).startsWith('socket:')) n += 1;
    } catch {
      // closed while listing
    }
  }
  return n;
}

function snapshot() {
  const resources = {};
  for (const r of process.getActiveResourcesInfo()) resources[r] = (resources[r] ?? 0) + 1;
  // The connection asking for this snapshot is itself a socket: not counted.
  resources.TCPSocketWrap = (resources.TCPSocketWrap ?? 1) - 1;
  resources['socket descriptors'] = socketDescriptors() - 1;
  return { timers: [...pending.values()], resources };
}

const probe = createServer((req, res) => {
  if (req.method === 'POST' && req.url === '/plant-timer') {
    planted.push(original.setTimeout(() => undefined, 3_600_000));
    pending.set(planted.at(-1), { kind: 'timeout', delay: 3_600_000, origin: 'planted by the probe' });
    planted.at(-1).unref();
  } else if (req.method === 'POST' && req.url === '/plant-socket') {
    const { port } = probe.address();
    // A request that never ends: its socket stays open (on both ends, in this process).
    const leak = request({ host: '127.0.0.1', port, method: 'POST', path: '/hold' });
    leak.write('x');
    planted.push(leak);
  } else if (req.url === '/hold') {
    return;
  }
  res.setHeader('content-type', 'application/json');
  res.setHeader('connection', 'close');
  res.end(JSON.stringify(snapshot()));
});
probe.listen(0, '127.0.0.1', () => {
  probe.unref();
  process.stderr.write(`handle-probe at http://127.0.0.1:${probe.address().port}\n`);
});
