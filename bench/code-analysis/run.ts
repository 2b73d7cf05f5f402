/**
 * Code analysis benchmark.
 *   (cd server && npx tsx ../bench/code-analysis/run.ts [--runs 20] [--chat | --chat-only])
 * 1. Per language, a generated 2,000-line file analysed with analysis_type=all through the worker pool (as the
 *    endpoint does), after 8 warm-up runs: p50/p95 latency and throughput in MB/s.
 *    With --languages=python,java only those languages.
 * 2. Per language, a project of 50 generated files of 200 lines (`generateProject`: in Python, JavaScript, TypeScript
 *    and Java each file's handler calls the next file's SQL helper, one cross-file finding per file) analysed as one
 *    job, after 3 warm-up runs: p50/p95 latency, and interleaved with it five analyses of the 2,000-line file (the
 *    same number of lines as single files) for the ratio of the medians. --project-only skips 1 (but then has no baseline in the same run).
 *    The load average is printed before and after: the machine may be shared.
 * 3. With --chat: latency of POST /v1/chat/completions (test key, simulator) and GET /v1/models on the real server,
 *    alone and while analyses run back to back on every worker.
 */
import { cpus, loadavg } from 'node:os';
import { createLogger } from '../../server/src/logger';
import { AnalysisPool, DEFAULT_THRESHOLDS } from '../../server/src/modules/code-analysis';
import { createAccountWithKey } from '../../server/test/helpers/fixtures';
import { startTestServer } from '../../server/test/helpers/server';
import { CODE_LANGUAGES } from '../../shared/src/code-analysis';
import { generateFile, generateProject } from './generate';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const RUNS = arg('--runs', 20);
const LANGUAGES = (() => {
  const given = process.argv.find((a) => a.startsWith('--languages='));
  if (!given) return CODE_LANGUAGES;
  const names = given.slice('--languages='.length).split(',');
  return CODE_LANGUAGES.filter((l) => names.includes(l));
})();
const load = () =>
  loadavg()
    .map((v) => v.toFixed(2))
    .join(', ');
const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)] ?? 0;
};
const ms = (v: number) => v.toFixed(1);

async function analysisLatency(): Promise<void> {
  const pool = new AnalysisPool({ size: 1, timeoutMs: 60_000, maxQueue: 4, logger: createLogger('silent') });
  console.log(
    `machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}, ${new Date().toISOString()}, load average ${load()}`,
  );
  console.log('| language | lines | KB | p50 ms | p95 ms | MB/s | functions | issues |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const language of LANGUAGES) {
    const code = generateFile(language);
    const job = {
      code,
      language,
      filename: undefined,
      analysisType: 'all' as const,
      thresholds: DEFAULT_THRESHOLDS,
    };
    let last = await pool.run(job);
    // Warm-up: grammar, queries, JIT. V8 runs a grammar's wasm in its baseline tier first and optimises the hot
    // functions after a few parses (Swift's lexer: ~6 parses of this file); 8 runs cover every grammar.
    for (let i = 0; i < 7; i += 1) last = await pool.run(job);
    const times: number[] = [];
    for (let i = 0; i < RUNS; i += 1) {
      const started = performance.now();
      last = await pool.run(job);
      times.push(performance.now() - started);
    }
    const bytes = Buffer.byteLength(code);
    const mean = times.reduce((a, b) => a + b, 0) / times.length;
    console.log(
      `| ${language} | ${code.split('\n').length} | ${(bytes / 1024).toFixed(0)} | ${ms(quantile(times, 0.5))} | ${ms(quantile(times, 0.95))} | ${(bytes / 1e6 / (mean / 1000)).toFixed(2)} | ${last.functions.length} | ${last.issues.length} |`,
    );
  }
  await pool.close();
}

async function projectLatency(): Promise<void> {
  const pool = new AnalysisPool({ size: 1, timeoutMs: 60_000, maxQueue: 4, logger: createLogger('silent') });
  console.log(`\nprojects: 50 files × 200 lines, one job each; load average ${load()}`);
  console.log(
    '| language | files | lines | KB | p50 ms | p95 ms | 5 × 2,000-line file p50 ms | ratio of p50s | functions | issues | cross-file findings |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const language of LANGUAGES) {
    const files = generateProject(language);
    const job = { files, analysisType: 'all' as const, thresholds: DEFAULT_THRESHOLDS };
    const single = {
      code: generateFile(language),
      language,
      filename: undefined,
      analysisType: 'all' as const,
      thresholds: DEFAULT_THRESHOLDS,
    };
    let last = await pool.run(job);
    for (let i = 0; i < 2; i += 1) last = await pool.run(job);
    for (let i = 0; i < 8; i += 1) await pool.run(single);
    // Interleaved with the project: the same lines as five 2,000-line files, one request each, so a change of
    // load on a shared machine hits both alike.
    const times: number[] = [];
    const singles: number[] = [];
    for (let i = 0; i < RUNS; i += 1) {
      let started = performance.now();
      last = await pool.run(job);
      times.push(performance.now() - started);
      started = performance.now();
      for (let j = 0; j < 5; j += 1) await pool.run(single);
      singles.push(performance.now() - started);
    }
    const lines = files.reduce((n, f) => n + f.code.split('\n').length, 0);
    const bytes = files.reduce((n, f) => n + Buffer.byteLength(f.code), 0);
    const crossing = last.issues.filter((i) =>
      i.trace?.some((s) => s.path !== undefined && s.path !== i.path),
    );
    console.log(
      `| ${language} | ${files.length} | ${lines} | ${(bytes / 1024).toFixed(0)} | ${ms(quantile(times, 0.5))} | ${ms(quantile(times, 0.95))} | ${ms(quantile(singles, 0.5))} | ${(quantile(times, 0.5) / quantile(singles, 0.5)).toFixed(2)} | ${last.summary.functions} | ${last.issues.length} | ${crossing.length} |`,
    );
  }
  console.log(`load average after: ${load()}`);
  await pool.close();
}

async function chatUnderLoad(): Promise<void> {
  const server = await startTestServer({
    env: { PLAN_FREE_RPM: '10000000', SIMULATOR_TOKEN_DELAY_MS: '0', CODE_ANALYSIS_WORKERS: '2' },
  });
  const { key } = await createAccountWithKey(server);
  const headers = { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' };
  const chat = async () => {
    const started = performance.now();
    const res = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        model: 'tessera-fast-4k',
        messages: [{ role: 'user', content: 'hello' }],
        max_tokens: 16,
      }),
    });
    await res.text();
    if (!res.ok) throw new Error(`chat ${res.status}`);
    return performance.now() - started;
  };
  const models = async () => {
    const started = performance.now();
    const res = await fetch(`${server.url}/v1/models`, { headers });
    await res.text();
    return performance.now() - started;
  };
  const sample = async (label: string) => {
    const c: number[] = [];
    const m: number[] = [];
    for (let i = 0; i < 100; i += 1) {
      c.push(await chat());
      m.push(await models());
    }
    console.log(
      `| ${label} | ${ms(quantile(c, 0.5))} | ${ms(quantile(c, 0.95))} | ${ms(quantile(m, 0.5))} | ${ms(quantile(m, 0.95))} |`,
    );
  };
  for (let i = 0; i < 10; i += 1) await chat(); // warm-up
  console.log('\n| chat/models latency | chat p50 ms | chat p95 ms | models p50 ms | models p95 ms |');
  console.log('|---|---|---|---|---|');
  await sample('idle');
  let running = true;
  let analyses = 0;
  const code = generateFile('python');
  const loop = async () => {
    while (running) {
      const res = await fetch(`${server.url}/api/code/analyze`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ code, language: 'python' }),
      });
      await res.text();
      analyses += 1;
    }
  };
  // Start both workers (tsx compiles the worker code once per thread) before measuring.
  await Promise.all(
    [0, 1].map(() =>
      fetch(`${server.url}/api/code/analyze`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ code, language: 'python' }),
      }).then((r) => r.text()),
    ),
  );
  const loops = [loop(), loop(), loop(), loop()];
  await new Promise((r) => setTimeout(r, 500));
  analyses = 0;
  await sample('4 concurrent 2,000-line analyses');
  running = false;
  await Promise.all(loops);
  console.log(`(${analyses} analyses completed during the loaded sample)`);
  await server.close();
}

if (!process.argv.includes('--chat-only') && !process.argv.includes('--project-only'))
  await analysisLatency();
if (!process.argv.includes('--chat-only')) await projectLatency();
if (process.argv.includes('--chat') || process.argv.includes('--chat-only')) await chatUnderLoad();
