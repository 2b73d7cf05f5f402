import { parentPort } from 'node:worker_threads';
import type { JsonBounds } from '../lib/json-shape';
import { type JsonBodyResult, readJsonBody } from './json-text';

/**
 * The parsing thread (json-parse-thread.ts): reads large JSON bodies off the event loop. Parsing 15 MB of
 * small objects takes 100–150 ms, which on the event loop every other request of the process would wait for.
 * A body within its bounds goes back to the event loop as a structured clone, whose cost the bounds limit.
 */
if (!parentPort) throw new Error('json-parse-worker.ts must run in a worker thread');
const port = parentPort;

export interface ParseRequest {
  id: number;
  /** The body's bytes (UTF-8, handed over, not copied), or its text when it was sent in another charset. */
  body: Uint8Array | string;
  bounds: JsonBounds;
}
export type ParseReply = { id: number; result: JsonBodyResult };

const utf8 = new TextDecoder('utf-8');

port.on('message', ({ id, body, bounds }: ParseRequest) => {
  const text = typeof body === 'string' ? body : utf8.decode(body);
  port.postMessage({ id, result: readJsonBody(text, bounds) } satisfies ParseReply);
});
