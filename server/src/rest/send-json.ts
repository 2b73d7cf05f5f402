import type { ServerResponse } from 'node:http';

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
