import express, { type RequestHandler } from 'express';
import { ServiceError } from '../../errors';

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
 * Parses a JSON body; any other content type is a 415 and a bad body a 400 or 413, all in our error body. A
 * body that has not arrived `timeoutMs` after it is first read is a 408 (a client trickling its body would
 * otherwise hold the connection and this request for as long as it likes).
 */
export function jsonBody(limit: number, timeoutMs: number): RequestHandler {
  const parse = express.json({ limit, strict: true, type: () => true });
  return (req, res, next) => {
    if (!hasBody(req)) {
      req.body = undefined;
      next();
      return;
    }
    const encoding = req.headers['content-encoding'];
    if (PLAIN_JSON.test(req.headers['content-type'] ?? '') && (!encoding || encoding === 'identity')) {
      readPlainJson(req, limit, timeoutMs).then(
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
    let settled = false;
    const timer = req.complete
      ? undefined
      : setTimeout(() => {
          settled = true;
          next(bodyParserError({ type: 'request.timeout', timeoutMs }, limit));
        }, timeoutMs);
    parse(req, res, (err?: unknown) => {
      clearTimeout(timer);
      if (settled) return;
      settled = true;
      if (err) next(bodyParserError(err as BodyParserError, limit));
      else next();
    });
  };
}

/**
 * The common case without body-parser's machinery (stream piping, charset decoding, content-encoding): plain
 * UTF-8 JSON read into one buffer and parsed, with body-parser's rules and our same errors: the declared and
 * the received length checked against the limit, an empty body read as {}, a byte-order mark skipped, only
 * an object or an array at the top.
 */
function readPlainJson(
  req: Parameters<RequestHandler>[0],
  limit: number,
  timeoutMs: number,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (declared > limit) {
      reject(bodyParserError({ type: 'entity.too.large', length: declared }, limit));
      return;
    }
    const chunks: Buffer[] = [];
    let received = 0;
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
      received += chunk.length;
      if (received > limit) fail({ type: 'entity.too.large' });
      else chunks.push(chunk);
    };
    // Most bodies have arrived with their headers: a timer only for those still on their way.
    if (!req.complete) timer = setTimeout(() => fail({ type: 'request.timeout', timeoutMs }), timeoutMs);
    req.on('data', onData);
    req.once('end', () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      let text = (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)).toString('utf8');
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      try {
        resolve(parseStrictJson(text));
      } catch (err) {
        reject(bodyParserError({ type: 'entity.parse.failed', message: (err as Error).message }, limit));
      }
    });
    req.on('error', () => fail({ type: 'request.aborted' }));
    req.once('close', () => {
      if (!req.complete) fail({ type: 'request.aborted' });
    });
  });
}

function parseStrictJson(text: string): unknown {
  if (text.length === 0) return {};
  const value: unknown = JSON.parse(text);
  if (typeof value !== 'object' || value === null) {
    throw new SyntaxError(
      `expected an object at the top level, received ${value === null ? 'null' : `a ${typeof value}`}`,
    );
  }
  return value;
}
