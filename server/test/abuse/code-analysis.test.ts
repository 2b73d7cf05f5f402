import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server';
import { expectBounded, expectRefused, newKey, post, stallBoundMs, startAbuseServer } from './harness';
import { costOver } from './stall-meter';

/**
 * Issue 27, item 2: code that would hold an analysis worker for its whole time limit is refused (400
 * `analysis_too_complex`) as soon as it is parsed, and one account cannot hold every worker: another account's
 * ordinary analysis keeps its usual latency while the first floods the pool.
 */
let server: TestServer;
let flooder: string;
let bystander: string;
beforeAll(async () => {
  // Two workers, as in production by default: each account may hold one.
  server = await startAbuseServer({ CODE_ANALYSIS_WORKERS: '2' });
  flooder = await newKey(server);
  bystander = await newKey(server);
});
afterAll(async () => {
  await server?.close();
});

function analyze(key: string, code: string, language = 'javascript') {
  const text = JSON.stringify({ code, language });
  return () => post(server, key, '/api/code/analyze', text);
}

describe('pathological code', () => {
  it("200 KB of '(' is a 400 naming the limit, well before the time limit", async () => {
    const started = performance.now();
    const { answer } = await expectBounded('parens', analyze(flooder, '('.repeat(200_000)));
    expectRefused(answer, 400, 'analysis_too_complex');
    expect(answer.body.error?.param).toBe('code');
    expect(answer.body.error?.message).toContain('5000');
    // Four answers (one warm-up, three measured) against the 10 s each.
    expect(performance.now() - started).toBeLessThan(30_000);
  }, 60_000);

  it('deep nesting is a 400 naming the limit', async () => {
    const code = `${'if (a) {'.repeat(2_000)}${'}'.repeat(2_000)}`;
    const { answer } = await expectBounded('nested', analyze(flooder, code));
    expectRefused(answer, 400, 'analysis_too_complex');
    expect(answer.body.error?.message).toContain('600 levels');
  });

  it('other shapes of unparsable input are refused or answered, the loop free', async () => {
    for (const [label, code, language] of [
      ['brackets', '['.repeat(100_000), 'javascript'],
      [
        'python indentation',
        Array.from({ length: 300 }, (_, i) => `${' '.repeat(i)}if a:\n`).join(''),
        'python',
      ],
      ['unclosed strings', `"${'\\'.repeat(100_000)}`, 'go'],
      ['many small errors', 'let x = ((;\n'.repeat(20_000), 'javascript'],
    ] as const) {
      const { answer } = await expectBounded(label, analyze(flooder, code, language));
      expect([200, 400], label).toContain(answer.status);
      if (answer.status === 400) expect(answer.body.error?.code, label).toBe('analysis_too_complex');
    }
  }, 120_000);
});

describe('one account flooding the workers', () => {
  // Ordinary code, large: seconds of analysis each, within the limits.
  const heavy = 'function f(a) { if (a && b || c) { return a ? 1 : 2; } }\n'.repeat(2_500);
  const small = 'function g(x) { return x > 1 ? x : 0; }\n';

  it("leaves the other account's analyses their usual latency", async () => {
    const timed = async (send: () => Promise<unknown>) => {
      const started = performance.now();
      await send();
      return performance.now() - started;
    };
    // Warm both workers and take the bystander's usual latency.
    await Promise.all([analyze(bystander, small)(), analyze(flooder, small)()]);
    const usual = Math.min(
      ...[await timed(analyze(bystander, small)), await timed(analyze(bystander, small))],
    );
    const oneHeavy = await timed(analyze(flooder, heavy));

    const flood = Array.from({ length: 4 }, () => analyze(flooder, heavy)());
    await new Promise((resolve) => setTimeout(resolve, 100));
    let during = 0;
    const cost = await costOver(async () => {
      during = await timed(analyze(bystander, small));
    }, 1);
    const answers = await Promise.all(flood);

    expect(answers.every((a) => a.status === 200)).toBe(true);
    // Without the per-account share, the bystander waited for the flood's analyses ahead of it (4 of oneHeavy on
    // 2 workers); with it, for no more than a worker's start.
    expect(during).toBeLessThan(Math.max(usual * 5, oneHeavy / 2, 1_000));
    expect(cost.stallMs).toBeLessThan(stallBoundMs());
  }, 120_000);

  it("refuses an account's analyses beyond its queue with a 429, not the others'", async () => {
    const flood = Array.from({ length: 12 }, () => analyze(flooder, heavy)());
    const bystanders = await analyze(bystander, small)();
    const answers = await Promise.all(flood);
    const refused = answers.filter((a) => a.status === 429);
    // One running, eight waiting: the rest refused at once.
    expect(refused.length).toBe(3);
    for (const answer of refused) expectRefused(answer, 429, 'analysis_concurrency_exceeded');
    expect(bystanders.status).toBe(200);
  }, 120_000);
});
