/**
 * How fast a client's disconnect reaches the upstream: a live-key stream through Tessera from a dripping fake
 * upstream, cut by the client after three tokens; measured until the upstream sees its connection close.
 *   cd server && npx tsx ../bench/gateway/abort.ts [trials]
 * Everything runs in this one process (one clock), on an in-memory database.
 */
import { request } from 'node:http';
import { writeFakeCatalogue } from '../../server/test/helpers/chat-setup';
import { startFakeOpenAi } from '../../server/test/helpers/fake-upstreams';
import { createAccountWithKey } from '../../server/test/helpers/fixtures';
import { startTestServer } from '../../server/test/helpers/server';
import { percentile } from './load';

const trials = Number(process.argv[2] ?? 30);
const upstream = await startFakeOpenAi({ dripMs: 20 });
const server = await startTestServer({
  env: { MODELS_FILE: writeFakeCatalogue(), OPENAI_BASE_URL: `${upstream.url}/v1`, PLAN_PRO_RPM: '100000' },
});
const key = (await createAccountWithKey(server, { plan: 'pro', kind: 'live' })).key.key;

function oneTrial(): Promise<number> {
  return new Promise((resolve, reject) => {
    const before = upstream.aborts.length;
    const req = request(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    });
    req.on('response', (res) => {
      let tokens = 0;
      res.on('data', (chunk: Buffer) => {
        tokens += (chunk.toString().match(/"content":" w/g) ?? []).length;
        if (tokens < 3) return;
        const cutAt = performance.now();
        req.destroy();
        const poll = setInterval(() => {
          const seen = upstream.aborts[before];
          if (seen === undefined) return;
          clearInterval(poll);
          resolve(seen - cutAt);
        }, 1);
      });
    });
    req.on('error', () => undefined);
    req.end(JSON.stringify({ model: 'up-drip', messages: [{ role: 'user', content: 'go' }], stream: true }));
    setTimeout(() => reject(new Error('no abort seen upstream within 5 s')), 5_000).unref();
  });
}

const latencies: number[] = [];
for (let i = 0; i < trials; i++) latencies.push(await oneTrial());
latencies.sort((a, b) => a - b);
console.log(
  `client disconnect → upstream connection closed, ${trials} trials: p50 ${percentile(latencies, 50).toFixed(2)} ms, p99 ${percentile(latencies, 99).toFixed(2)} ms, max ${(latencies.at(-1) ?? 0).toFixed(2)} ms`,
);
await server.close(500);
await upstream.close();
process.exit(0);
