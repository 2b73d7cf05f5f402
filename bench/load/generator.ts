/**
 * Open-loop generator: requests start on schedule at the offered rate whatever the answers do, round-robin over
 * the instances. A cap on requests in flight keeps an overloaded server from exhausting the generator; the
 * requests the cap holds back are counted as `notSent`, never silently dropped.
 */
import { call, type Kind, MIX, type Outcome } from './workload';

export interface PhaseOptions {
  urls: string[];
  key: string;
  rps: number;
  seconds: number;
  maxInFlight: number;
}

export interface PhaseResult {
  outcomes: Outcome[];
  notSent: number;
  elapsedS: number;
}

/** Kinds in a fixed order that repeats every 20 requests and matches MIX exactly. */
function schedule(): Kind[] {
  const order: Kind[] = [];
  for (const [kind, share] of Object.entries(MIX) as [Kind, number][]) {
    for (let i = 0; i < Math.round(share * 20); i++) order.push(kind);
  }
  // Interleave so that one kind never arrives as a burst of 4.
  return order.map((_, i) => order[(i * 7) % order.length] as Kind);
}

export async function runPhase(options: PhaseOptions): Promise<PhaseResult> {
  const { urls, key, rps, seconds, maxInFlight } = options;
  const kinds = schedule();
  const total = Math.round(rps * seconds);
  const interval = 1000 / rps;
  const outcomes: Outcome[] = [];
  const pending = new Set<Promise<void>>();
  let sent = 0;
  let notSent = 0;
  const start = performance.now();
  // Bounded: it stops when every scheduled slot is used, at most `seconds` plus one timer tick later.
  while (sent + notSent < total) {
    const due = Math.min(total, Math.floor((performance.now() - start) / interval) + 1);
    while (sent + notSent < due) {
      const i = sent + notSent;
      if (pending.size >= maxInFlight) {
        notSent += 1;
        continue;
      }
      const kind = kinds[i % kinds.length] as Kind;
      const url = urls[i % urls.length] as string;
      const p: Promise<void> = call(url, key, kind).then((o) => {
        outcomes.push(o);
        pending.delete(p);
      });
      pending.add(p);
      sent += 1;
    }
    await new Promise((r) => setTimeout(r, 2));
  }
  await Promise.all(pending);
  return { outcomes, notSent, elapsedS: (performance.now() - start) / 1000 };
}

/**
 * Closed loop for the throughput ceiling: `concurrency` callers each send their next request as soon as the
 * previous one answers, for `seconds`. Unlike an overloaded open loop it measures capacity without queueing
 * seconds of backlog inside the servers.
 */
export async function runClosed(
  options: Omit<PhaseOptions, 'rps' | 'maxInFlight'> & { concurrency: number },
): Promise<PhaseResult> {
  const { urls, key, seconds, concurrency } = options;
  const kinds = schedule();
  const outcomes: Outcome[] = [];
  const start = performance.now();
  const deadline = start + seconds * 1000;
  let next = 0;
  const worker = async () => {
    // Bounded by the deadline; each call has its own 60 s timeout.
    while (performance.now() < deadline) {
      const i = next++;
      outcomes.push(await call(urls[i % urls.length] as string, key, kinds[i % kinds.length] as Kind));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { outcomes, notSent: 0, elapsedS: (performance.now() - start) / 1000 };
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}
