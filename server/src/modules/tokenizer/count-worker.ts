import { parentPort } from 'node:worker_threads';
import { countTokens } from './encoder';

/** The counting thread (thread.ts): sums the token counts of the texts it is sent. */
if (!parentPort) throw new Error('count-worker.ts must run in a worker thread');
const port = parentPort;

export interface CountRequest {
  id: number;
  texts: string[];
}
export type CountReply = { id: number; tokens: number } | { ready: true };

// Builds the BPE (about half a second) before saying it is ready.
countTokens('warm up');
port.on('message', ({ id, texts }: CountRequest) => {
  let tokens = 0;
  for (const text of texts) tokens += countTokens(text);
  port.postMessage({ id, tokens } satisfies CountReply);
});
port.postMessage({ ready: true } satisfies CountReply);
