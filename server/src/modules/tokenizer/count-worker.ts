import { FairQueue } from '../../lib/fair-queue';
import { serveRequests } from '../../lib/thread-serve';
import { countTokenSpan, countTokens, newCursor, type SpanCursor } from './encoder';

/**
 * The counting thread (thread.ts): sums the token counts of the texts it is sent. Texts are counted a span at a
 * time (SPAN_CHARS, ending between pieces, so the sum is countTokens' exactly), the owners' jobs in turn
 * (lib/fair-queue.ts), and the thread looks at its messages between spans: a flood of long prompts from one
 * account makes another account's prompt wait for a span of each of the flood's, not for the whole flood.
 */
export interface CountRequest {
  texts: string[];
  /** Whose texts (an account id): owners take turns. */
  owner: string;
  /** Counting stops once the texts come to this many tokens (null: count them all). */
  limit: number | null;
}
/** `complete`: every text was counted (false when counting stopped at the limit). */
export interface CountReply {
  tokens: number;
  complete: boolean;
}

// About 1-5 ms of counting on ordinary text.
const SPAN_CHARS = 16_384;

interface Job {
  answer: (reply: CountReply) => void;
  texts: string[];
  index: number;
  cursor: SpanCursor;
  tokens: number;
  limit: number;
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
    job.tokens += countTokenSpan(text, job.cursor, SPAN_CHARS);
    if (job.cursor.at >= text.length) {
      job.index += 1;
      job.cursor = newCursor();
    }
  }
  const complete = job.index >= job.texts.length;
  if (complete || job.tokens >= job.limit) job.answer({ tokens: job.tokens, complete });
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
serveRequests<CountRequest, CountReply>(
  ({ texts, owner, limit }) =>
    new Promise((answer) => {
      jobs.push(owner, {
        answer,
        texts,
        index: 0,
        cursor: newCursor(),
        tokens: 0,
        limit: limit ?? Number.POSITIVE_INFINITY,
      });
      schedule();
    }),
);
