import { TextDecoder } from 'node:util';
import express, { type RequestHandler } from 'express';
import { ServiceError } from '../../errors';
import { jsonParseThread } from '../../http/json-parse-thread';
import { type JsonBodyResult, readJsonBody } from '../../http/json-text';
import { contextOf } from '../../http/request-context';
import type { JsonBounds } from '../../lib/json-shape';

interface BodyParserError {
  type?: string;
  status?: number;
  limit?: number;
  length?: number;
  message?: string;
  charset?: string;
  /** Ours, for `request.timeout`: the deadline that passed. */
  timeoutMs?: number;
}

/** Maps body-parser's failures to our error kinds, each with a message that says what was wrong. */
export function bodyParserError(err: BodyParserError, limit: number): ServiceError {
  switch (err.type) {
    case 'entity.too.large':
      return new ServiceError(
        'payload_too_large',
        `Request body is too large: ${err.length ?? 'more than'} bytes; the limit is ${limit} bytes.`,
        { code: 'request_too_large' },
      );
    case 'entity.parse.failed':
      return new ServiceError(
        'invalid_request',
        `We could not parse the JSON body of your request (${err.message ?? 'invalid JSON'}). The body must be a JSON object.`,
        { code: 'invalid_json' },
      );
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return new ServiceError(
        'unsupported_media_type',
        `Unsupported body encoding${err.charset ? ` '${err.charset}'` : ''}: send UTF-8 JSON.`,
        { code: 'unsupported_media_type' },
      );
    case 'request.timeout':
      return new ServiceError(
        'request_timeout',
        `The request body did not arrive within ${err.timeoutMs ?? 0} ms (BODY_TIMEOUT_MS); the connection is closed.`,
        // The rest of the body is not read: the connection cannot carry another request.
        { code: 'request_timeout', headers: { connection: 'close' } },
      );
    case 'request.aborted':
      return new ServiceError('invalid_request', 'The request body was cut off before it was complete.', {
        code: 'request_aborted',
      });
    default:
      return new ServiceError('invalid_request', 'The request body could not be read.', {
        code: 'invalid_body',
      });
  }
}

function hasBody(req: Parameters<RequestHandler>[0]): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** `application/json` in UTF-8 (stated or implied), with no other parameter: what nearly every client sends. */
const PLAIN_JSON = /^application\/json\s*(?:;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;

/**
 * Bodies larger than this are parsed on the parsing thread (http/json-parse-thread.ts), not on the event loop:
 * JSON.parse takes up to ~10 ns a byte (small objects), so 512 KB holds the loop ~5 ms at most.
 */
export const PARSE_ASIDE_BYTES = 512 * 1024;

/** Turns a parse's outcome into the body, or the 400 that says what was wrong with it. */
function bodyOf(result: JsonBodyResult, limit: number): unknown {
  if (result.ok) return result.value;
  const { failure } = result;
  if (failure.kind === 'syntax') {
    throw bodyParserError({ type: 'entity.parse.failed', message: failure.message }, limit);
  }
  const { violation, bounds } = failure;
  const message =
    violation.bound === 'values'
      ? `The request body holds more than ${bounds.maxValues} JSON values (objects, arrays, strings, numbers, booleans and nulls, counted together); the limit is ${bounds.maxValues}. Send fewer messages, content parts or schema properties.`
      : `The request body is nested more than ${bounds.maxDepth} levels deep; the limit is ${bounds.maxDepth}.`;
  throw new ServiceError('invalid_request', message, { code: 'request_too_complex' });
}

/**
 * Reads a body's text or UTF-8 bytes within `bounds`: large ones on the parsing thread, in the account's turn,
 * small ones here.
 */
async function parseBody(
  body: Buffer | string,
  owner: string,
  bounds: JsonBounds,
  limit: number,
): Promise<unknown> {
  if (body.length <= PARSE_ASIDE_BYTES) {
    return bodyOf(readJsonBody(typeof body === 'string' ? body : body.toString('utf8'), bounds), limit);
  }
  return bodyOf(await jsonParseThread.parse(body, owner, bounds), limit);
}

/** The charset a content type names, lower case; undefined when it names none. */
function charsetOf(contentType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '');
  return match?.[1]?.toLowerCase();
}

/**
 * Parses a JSON body; any other content type is a 415 and a bad body a 400 or 413, all in our error body. A
 * body that has not arrived `timeoutMs` after it is first read is a 408 (a client trickling its body would
 * otherwise hold the connection and this request for as long as it likes). A body past `bounds` (values,
 * nesting) is a 400 `request_too_complex`.
 */
export function jsonBody(limit: number, timeoutMs: number, bounds: JsonBounds): RequestHandler {
  // Other charsets and content encodings: body-parser reads (and inflates) the bytes; we decode and parse them.
  const raw = express.raw({ limit, type: () => true });
  return (req, res, next) => {
    if (!hasBody(req)) {
      req.body = undefined;
      next();
      return;
    }
    const owner = contextOf(res).principal?.accountId ?? '';
    const encoding = req.headers['content-encoding'];
    if (PLAIN_JSON.test(req.headers['content-type'] ?? '') && (!encoding || encoding === 'identity')) {
      readPlainJson(req, limit, timeoutMs)
        .then((bytes) => parseBody(bytes, owner, bounds, limit))
        .then(
          (body) => {
            req.body = body;
            next();
          },
          (err: unknown) => next(err),
        );
      return;
    }
    if (!req.is(['application/json', 'application/*+json'])) {
      const got = req.get('content-type');
      next(
        new ServiceError(
          'unsupported_media_type',
          `Content-Type must be application/json; received ${got ? `'${got}'` : 'none'}.`,
          { code: 'unsupported_media_type' },
        ),
      );
      return;
    }
    const charset = charsetOf(req.headers['content-type']);
    let decoder: TextDecoder | undefined;
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      try {
        // body-parser's JSON reader took the UTF charsets only.
        if (!charset.startsWith('utf-')) throw new RangeError(charset);
        decoder = new TextDecoder(charset);
      } catch {
        next(bodyParserError({ type: 'charset.unsupported', charset }, limit));
        return;
      }
    }
    let settled = false;
    const timer = req.complete
      ? undefined
      : setTimeout(() => {
          settled = true;
          next(bodyParserError({ type: 'request.timeout', timeoutMs }, limit));
        }, timeoutMs);
    raw(req, res, (err?: unknown) => {
      clearTimeout(timer);
      if (settled) return;
      settled = true;
      if (err) {
        next(bodyParserError(err as BodyParserError, limit));
        return;
      }
      const bytes = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      parseBody(decoder ? decoder.decode(bytes) : bytes, owner, bounds, limit).then(
        (body) => {
          req.body = body;
          next();
        },
        (error: unknown) => next(error),
      );
    });
  };
}

/**
 * The common case without body-parser's machinery (stream piping, charset decoding, content-encoding): plain
 * UTF-8 JSON read into one buffer, with body-parser's rules and our same errors: the declared and the received
 * length checked against the limit.
 */
function readPlainJson(
  req: Parameters<RequestHandler>[0],
  limit: number,
  timeoutMs: number,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (declared > limit) {
      reject(bodyParserError({ type: 'entity.too.large', length: declared }, limit));
      return;
    }
    const chunks: Buffer[] = [];
    let received = 0;
    // A large body of declared length is copied into one buffer of its own as its chunks arrive, a chunk a turn:
    // joined at the end instead, 19 MB took one Buffer.concat of ~100 ms on the event loop (2 slow vCPUs).
    const whole =
      Number.isSafeInteger(declared) && declared > PARSE_ASIDE_BYTES
        ? Buffer.allocUnsafeSlow(declared)
        : undefined;
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const fail = (err: BodyParserError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.off('data', onData);
      reject(bodyParserError(err, limit));
    };
    const onData = (chunk: Buffer) => {
      if (whole && received + chunk.length <= whole.length) chunk.copy(whole, received);
      else if (whole) fail({ type: 'request.size.invalid' });
      else chunks.push(chunk);
      received += chunk.length;
      if (received > limit) fail({ type: 'entity.too.large' });
    };
    // Most bodies have arrived with their headers: a timer only for those still on their way.
    if (!req.complete) timer = setTimeout(() => fail({ type: 'request.timeout', timeoutMs }), timeoutMs);
    req.on('data', onData);
    req.once('end', () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // One buffer of its own (a lone chunk may share the socket's): large bodies are handed to the parsing thread.
      if (whole) resolve(received === whole.length ? whole : whole.subarray(0, received));
      else
        resolve(
          chunks.length === 1 && received <= PARSE_ASIDE_BYTES
            ? (chunks[0] as Buffer)
            : Buffer.concat(chunks, received),
        );
    });
    req.on('error', () => fail({ type: 'request.aborted' }));
    req.once('close', () => {
      if (!req.complete) fail({ type: 'request.aborted' });
    });
  });
}
