import { parentPort } from 'node:worker_threads';
import { FairQueue } from '../../lib/fair-queue';
import { countTokenSpan, countTokens } from './encoder';

/**
 * The counting thread (thread.ts): sums the token counts of the texts it is sent. Texts are counted a span at a
 * time (SPAN_CHARS, ending between pieces, so the sum is countTokens' exactly), the owners' jobs in turn
 * (lib/fair-queue.ts), and the thread looks at its messages between spans: a flood of long prompts from one
 * account makes another account's prompt wait for a span of each of the flood's, not for the whole flood.
 */
if (!parentPort) throw new Error('count-worker.ts must run in a worker thread');
const port = parentPort;

export interface CountRequest {
  id: number;
  texts: string[];
  /** Whose texts (an account id): owners take turns. */
  owner: string;
}
export type CountReply = { id: number; tokens: number } | { ready: true };

// About 1-5 ms of counting on ordinary text.
const SPAN_CHARS = 16_384;

interface Job {
  id: number;
  texts: string[];
  index: number;
  at: number;
  tokens: number;
}

const jobs = new FairQueue<Job>();
let scheduled = false;

/** Counts one span of the next owner's job, then lets messages in before the next span. */
function countSpan(): void {
  scheduled = false;
  const next = jobs.take();
  if (!next) return;
  const { owner, item: job } = next;
  const text = job.texts[job.index];
  if (text !== undefined) {
    const { tokens, end } = countTokenSpan(text, job.at, SPAN_CHARS);
    job.tokens += tokens;
    if (end < text.length) job.at = end;
    else {
      job.index += 1;
      job.at = 0;
    }
  }
  if (job.index >= job.texts.length)
    port.postMessage({ id: job.id, tokens: job.tokens } satisfies CountReply);
  else jobs.unshift(owner, job);
  schedule();
}

function schedule(): void {
  if (scheduled || jobs.size === 0) return;
  scheduled = true;
  setImmediate(countSpan);
}

// Builds the BPE (about half a second) before saying it is ready.
countTokens('warm up');
port.on('message', ({ id, texts, owner }: CountRequest) => {
  jobs.push(owner, { id, texts, index: 0, at: 0, tokens: 0 });
  schedule();
});
port.postMessage({ ready: true } satisfies CountReply);
