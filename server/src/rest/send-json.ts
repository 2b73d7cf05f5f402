import type { ServerResponse } from 'node:http';
import { setImmediate } from 'node:timers/promises';

/**
 * Writes a JSON answer in one step: what Express's `res.json` sends for a POST (same content type and length),
 * without its content-type parsing, charset rewriting and freshness checks, which cost a proxied chat call
 * about as much CPU as building its answer.
 */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(text));
  res.end(text);
}

/** How much JSON a turn of the event loop writes of a list sent in pieces (sendJsonList). */
const LIST_TURN_BYTES = 256 * 1024;

/**
 * Writes a JSON object whose `field` is a long list, a piece at a time: `JSON.stringify` of a whole answer of
 * thousands of long vectors (embeddings: up to 2,048 × 3,072 numbers, over 100 MB) held the event loop for
 * seconds. Items are serialized in turns of about LIST_TURN_BYTES, waiting for the connection to drain when it
 * is full; a client that leaves stops the writing. Sent chunked (no content-length): the length is not known
 * before the end. The object is the same JSON `sendJson` would send, with `field` first.
 */
export async function sendJsonList(
  res: ServerResponse,
  status: number,
  field: string,
  items: readonly unknown[],
  rest: Record<string, unknown>,
): Promise<void> {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  let piece = `{${JSON.stringify(field)}:[`;
  for (const [i, item] of items.entries()) {
    piece += (i === 0 ? '' : ',') + JSON.stringify(item);
    if (piece.length < LIST_TURN_BYTES) continue;
    if (res.destroyed) return;
    const room = res.write(piece);
    piece = '';
    if (room) await setImmediate();
    else await drained(res);
  }
  const tail = JSON.stringify(rest);
  res.end(`${piece}]${tail === '{}' ? '' : `,${tail.slice(1, -1)}`}}`);
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done).off('close', done);
      resolve();
    };
    res.on('drain', done).on('close', done);
  });
}
