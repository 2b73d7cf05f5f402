import { availableParallelism, loadavg } from 'node:os';
import { expect } from 'vitest';
import { createAccountWithKey } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';
import { type Cost, costOver } from './stall-meter';

/**
 * The bounds every abusive request must keep (docs/deployment.md, "Bounds on work per request"): the event loop
 * held no longer than stallBoundMs(), the heap grown no more than HEAP_BOUND_MB while the request is answered.
 *
 * A stall is wall time, and on a machine whose cores are shared by more runnable threads than it has (a CI
 * runner, five engineers' tests on 2 cores) a millisecond of work takes several: the bound is scaled by the
 * machine's load per core over the last minute, at most 8 times. On a quiet machine it is 50 ms; the requests
 * these tests send held the loop for 0.5-90 s before their fixes, far past any scaled bound.
 */
const BASE_STALL_BOUND_MS = 50;
export const HEAP_BOUND_MB = 64;

export function stallBoundMs(): number {
  const loadPerCore = (loadavg()[0] ?? 0) / Math.max(1, availableParallelism());
  return BASE_STALL_BOUND_MS * Math.min(8, Math.max(1, loadPerCore));
}

export interface Answer {
  status: number;
  body: { error?: { message: string; type: string; param: string | null; code: string | null } } & Record<
    string,
    unknown
  >;
}

/** The real server (no simulator pacing, a generous rate limit) and a test key of a fresh account. */
export async function startAbuseServer(env: Record<string, string> = {}): Promise<TestServer> {
  return startTestServer({
    env: { SIMULATOR_TOKEN_DELAY_MS: '0', PLAN_FREE_RPM: '100000', ...env },
  });
}

export async function newKey(server: TestServer): Promise<string> {
  return (await createAccountWithKey(server)).key.key;
}

/**
 * Bytes as a stream of 256 KB slices, pulled as the socket takes them: given whole, fetch copies a body in one
 * piece on this process's loop (~70 ms for 19 MB on a slow vCPU), which the stall meter would charge to the server.
 */
function inSlices(bytes: Uint8Array): ReadableStream<Uint8Array> {
  const SLICE = 256 * 1024;
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.byteLength) controller.close();
      else {
        controller.enqueue(bytes.subarray(at, at + SLICE));
        at += SLICE;
      }
    },
  });
}

/**
 * POSTs a body serialized beforehand (the client's own JSON work is not the server's stall); bytes for the
 * largest, whose UTF-8 encoding alone would hold the test's own loop.
 */
export async function post(
  server: TestServer,
  key: string,
  path: string,
  text: string | Uint8Array,
): Promise<Answer> {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      ...(typeof text !== 'string' && { 'content-length': String(text.byteLength) }),
    },
    ...(typeof text === 'string' ? { body: text } : { body: inSlices(text), duplex: 'half' }),
  } as RequestInit);
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}

/**
 * Sends `send` once to warm the code paths (V8 compiles them on first use), then measures it over three rounds;
 * asserts the bounds and returns the last answer with the cost.
 */
export async function expectBounded(
  label: string,
  send: () => Promise<Answer>,
): Promise<{ answer: Answer; cost: Cost }> {
  let answer = await send();
  const cost = await costOver(async () => {
    answer = await send();
  });
  expect(cost.stallMs, `${label}: longest event-loop stall (ms)`).toBeLessThan(stallBoundMs());
  expect(cost.peakHeapGrowthMb, `${label}: heap growth while answered (MB)`).toBeLessThan(HEAP_BOUND_MB);
  return { answer, cost };
}

/** An OpenAI error body with all four keys and the expected code. */
export function expectRefused(answer: Answer, status: number, code: string): void {
  expect(answer.status).toBe(status);
  expect(Object.keys(answer.body.error ?? {}).sort()).toEqual(['code', 'message', 'param', 'type']);
  expect(answer.body.error?.code).toBe(code);
}
