import express, { type RequestHandler } from 'express';
import { ServiceError } from '../../errors';

interface BodyParserError {
  type?: string;
  status?: number;
  limit?: number;
  length?: number;
  message?: string;
  charset?: string;
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

/** Parses a JSON body; any other content type is a 415 and a bad body a 400 or 413, all in our error body. */
export function jsonBody(limit: number): RequestHandler {
  const parse = express.json({ limit, strict: true, type: () => true });
  return (req, res, next) => {
    if (!hasBody(req)) {
      req.body = undefined;
      next();
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
    parse(req, res, (err?: unknown) => {
      if (err) next(bodyParserError(err as BodyParserError, limit));
      else next();
    });
  };
}
