import { countTokenSpan, newCursor, type SpanCursor } from './encoder';

/**
 * Counting long texts on the event loop a little at a time, for when the counting thread (thread.ts) is not
 * ready: every other request on the process waits while a text is counted, and 1 MB of prompt takes 100–300 ms
 * of CPU.
 *
 * Texts wait in one queue, first come first counted. Each turn of the event loop counts for at most TURN_MS,
 * in spans of SPAN_CHARS, then lets the loop run (its I/O, timers, the other requests) before the next turn.
 * However many large prompts arrive together, the loop is held for about TURN_MS at a time. Other requests
 * still pay: a request waits for one turn at each of its steps that waits for I/O (reading it, the database,
 * the upstream), which is why the thread is preferred.
 */
const TURN_MS = 1;
const SPAN_CHARS = 2_048;

interface Job {
  texts: string[];
  /** The text being counted, and where in it the next span starts. */
  index: number;
  cursor: SpanCursor;
  tokens: number;
  /** Counting stops once the texts come to this many tokens (the caller needs no more). */
  limit: number;
  resolve: (count: TextsCount) => void;
  reject: (err: unknown) => void;
}

const queue: Job[] = [];
let head = 0;
let scheduled = false;

/** Texts' summed counts; `complete` is false when counting stopped at the limit (there are at least `tokens`). */
export interface TextsCount {
  tokens: number;
  complete: boolean;
}

/**
 * The summed token counts of texts (each counted as countTokens counts it), counted in turns; once the sum reaches
 * `limit` counting stops, and the sum so far (at least `limit`) is the answer.
 */
export function countTokensInTurns(texts: string[], limit = Number.POSITIVE_INFINITY): Promise<TextsCount> {
  return new Promise((resolve, reject) => {
    queue.push({ texts, index: 0, cursor: newCursor(), tokens: 0, limit, resolve, reject });
    if (!scheduled) {
      scheduled = true;
      setImmediate(turn);
    }
  });
}

/** Advances a job by one span; true when its last text is counted. */
function step(job: Job): boolean {
  const text = job.texts[job.index];
  if (text === undefined) return true;
  job.tokens += countTokenSpan(text, job.cursor, SPAN_CHARS);
  if (job.cursor.at >= text.length) {
    job.index += 1;
    job.cursor = newCursor();
  }
  return job.index >= job.texts.length || job.tokens >= job.limit;
}

function turn(): void {
  const deadline = performance.now() + TURN_MS;
  while (head < queue.length) {
    const job = queue[head] as Job;
    let done: boolean;
    try {
      done = step(job);
    } catch (err) {
      head += 1;
      job.reject(err);
      continue;
    }
    if (done) {
      head += 1;
      job.resolve({ tokens: job.tokens, complete: job.index >= job.texts.length });
    }
    if (performance.now() >= deadline) break;
  }
  if (head >= queue.length) {
    queue.length = 0;
    head = 0;
    scheduled = false;
  } else {
    if (head > 1_000) {
      queue.splice(0, head);
      head = 0;
    }
    setImmediate(turn);
  }
}
