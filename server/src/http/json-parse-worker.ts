import { type MessagePort, workerData } from 'node:worker_threads';
import type { JsonBounds } from '../lib/json-shape';
import { serveRequests } from '../lib/thread-serve';
import { type JsonBodyResult, readJsonBody } from './json-text';
import { type LargeText, takeLargeTexts, transferList } from './large-texts';
import { splitValue } from './value-pieces';

/**
 * The parsing thread (json-parse-thread.ts): reads large JSON bodies off the event loop. Parsing 15 MB of
 * small objects takes 100–150 ms, which on the event loop every other request of the process would wait for.
 * A body within its bounds goes back to the event loop as a structured clone, whose cost the bounds limit, except
 * its long strings, which go back as bytes (large-texts.ts), and a body of many values, which goes back in pieces
 * on the port the thread was given (value-pieces.ts), posted before the reply that says how many there are.
 */
const piecePort = (workerData as { pieces: MessagePort }).pieces;

export interface ParseRequest {
  /** The body's bytes (UTF-8, handed over, not copied), or its text when it was sent in another charset. */
  body: Uint8Array | string;
  bounds: JsonBounds;
}
export type ParseReply = { result: JsonBodyResult; large: LargeText[]; pieces: number };

const utf8 = new TextDecoder('utf-8');

serveRequests<ParseRequest, ParseReply>(
  ({ body, bounds }) => {
    const text = typeof body === 'string' ? body : utf8.decode(body);
    const result = readJsonBody(text, bounds);
    if (!result.ok) return { result, large: [], pieces: 0 };
    const large = takeLargeTexts(result.value);
    const { shell, pieces } = splitValue(result.value);
    for (const piece of pieces) piecePort.postMessage(piece);
    return { result: { ok: true, value: shell }, large, pieces: pieces.length };
  },
  { transfer: (reply) => transferList(reply.large) },
);
