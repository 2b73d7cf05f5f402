/**
 * Child process: the floor, a minimal Node.js relay with nothing of Tessera in it (no auth, limits, metering,
 * validation or tokenizer): node:http in, Tessera's own upstream client (an undici pool with keep-alive) out, the
 * body and answer passed through.
 * It shows what any Node.js gateway pays on this machine. Prints its URL (and an unused key, as tessera.ts does).
 */
import { createServer } from 'node:http';
import { UpstreamClient } from '../../server/src/modules/providers/http';
import { allocationWindow } from './alloc-window';

const upstreamUrl = process.argv[2];
if (!upstreamUrl) throw new Error('usage: floor.ts <upstream url> [--alloc-prof=<file>]');
// --alloc-prof=<file>: a sampled allocation profile between two SIGUSR2 (alloc.ts).
const allocProfile = process.argv.find((a) => a.startsWith('--alloc-prof='))?.split('=')[1];
if (allocProfile) allocationWindow(allocProfile);
const upstream = new UpstreamClient(
  { name: 'floor', baseUrl: `${upstreamUrl}/v1`, apiKey: 'sk-floor' },
  {
    authorization: 'Bearer sk-floor',
  },
);

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', async () => {
    try {
      const body = Buffer.concat(chunks);
      const json = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
      json.model = 'ok';
      const answer = await upstream.post('/chat/completions', json, new AbortController().signal);
      res.writeHead(answer.statusCode, {
        'content-type': String(answer.headers['content-type'] ?? 'application/json'),
      });
      for await (const chunk of answer.body) res.write(chunk);
      res.end();
    } catch {
      res.writeHead(502).end();
    }
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}`, key: 'unused' })}\n`);
});
process.on('SIGTERM', () => {
  server.close();
  void upstream.close().finally(() => process.exit(0));
});
