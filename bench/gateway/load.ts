import { Agent, request } from 'node:http';

export interface Target {
  /** Full URL of the chat completions endpoint. */
  url: string;
  headers: Record<string, string>;
  model: string;
  /** The user message (default a short sentence). */
  content?: string;
}

export interface PhaseResult {
  /** Milliseconds: whole response (non-streamed) or first content token (streamed). */
  latencies: number[];
  errors: number;
}

/** Why calls failed, by reason (printed by the runner when a phase had errors). */
export const failures = new Map<string, number>();
function failure(reason: string): void {
  failures.set(reason, (failures.get(reason) ?? 0) + 1);
}

const agent = new Agent({ keepAlive: true, maxSockets: 512 });

/** One call; resolves with the latency that matters for its mode, or undefined on an error. */
export function call(target: Target, stream: boolean): Promise<number | undefined> {
  const body = JSON.stringify({
    model: target.model,
    messages: [{ role: 'user', content: target.content ?? 'Say hello to the benchmark.' }],
    max_tokens: 16,
    ...(stream && { stream: true }),
  });
  return new Promise((resolve) => {
    const started = performance.now();
    let firstToken: number | undefined;
    let seen = '';
    const req = request(
      target.url,
      { method: 'POST', agent, headers: { ...target.headers, 'content-type': 'application/json' } },
      (res) => {
        res.setEncoding('utf8');
        res.on('data', (text: string) => {
          if (!stream || firstToken !== undefined) return;
          seen += text;
          // The first content token of the fake upstream's answer.
          if (seen.includes('"content":"Hello"')) firstToken = performance.now() - started;
        });
        res.on('end', () => {
          if (res.statusCode !== 200) failure(`status ${res.statusCode}`);
          if (res.statusCode !== 200) resolve(undefined);
          else resolve(stream ? firstToken : performance.now() - started);
        });
        res.on('error', (err) => {
          failure(`response ${(err as NodeJS.ErrnoException).code ?? err.message}`);
          resolve(undefined);
        });
      },
    );
    req.on('error', (err) => {
      failure(`request ${(err as NodeJS.ErrnoException).code ?? err.message}`);
      resolve(undefined);
    });
    req.end(body);
  });
}

/** Open loop: requests start on schedule at `rps` whatever the answers do, for `seconds`. */
export async function runPhase(
  target: Target,
  stream: boolean,
  rps: number,
  seconds: number,
): Promise<PhaseResult> {
  const total = Math.round(rps * seconds);
  const interval = 1000 / rps;
  const start = performance.now();
  const pending: Promise<number | undefined>[] = [];
  let sent = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor((performance.now() - start) / interval) + 1);
    while (sent < due) {
      pending.push(call(target, stream));
      sent += 1;
    }
    await new Promise((r) => setTimeout(r, 1));
  }
  const results = await Promise.all(pending);
  if (process.env.GATEWAY_BENCH_DUMP) {
    const { appendFileSync } = await import('node:fs');
    appendFileSync(
      process.env.GATEWAY_BENCH_DUMP,
      `${JSON.stringify({ url: target.url, stream, interval, t0: performance.timeOrigin + start, lat: results })}\n`,
    );
  }
  const latencies = results.filter((r): r is number => r !== undefined).sort((a, b) => a - b);
  return { latencies, errors: results.length - latencies.length };
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}
