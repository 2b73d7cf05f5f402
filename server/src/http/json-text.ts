import {
  checkJsonShape,
  checkJsonTextShape,
  type JsonBounds,
  type JsonShapeViolation,
} from '../lib/json-shape';

/** Why a body is not one we take: not JSON, a bare primitive, or past the bounds on its shape. */
export type JsonBodyFailure =
  | { kind: 'syntax'; message: string }
  | { kind: 'shape'; violation: JsonShapeViolation; bounds: JsonBounds };

/** A parsed body, or why it is refused. */
export type JsonBodyResult = { ok: true; value: unknown } | { ok: false; failure: JsonBodyFailure };

/** Texts longer than this have their bounds read before they are parsed (lib/json-shape.ts, checkJsonTextShape). */
const TEXT_SCAN_CHARS = 256 * 1024;

/**
 * A JSON body as body-parser reads one in strict mode, and within its bounds: a byte-order mark skipped, an empty
 * body read as {}, only an object or an array at the top. The one reading of a body, on the event loop for small
 * bodies and on the parsing thread for large ones (json-parse-thread.ts).
 */
export function readJsonBody(text: string, bounds: JsonBounds): JsonBodyResult {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (body.length === 0) return { ok: true, value: {} };
  if (body.length > TEXT_SCAN_CHARS) {
    const violation = checkJsonTextShape(body, bounds);
    if (violation) return { ok: false, failure: { kind: 'shape', violation, bounds } };
  }
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (err) {
    return { ok: false, failure: { kind: 'syntax', message: (err as Error).message } };
  }
  if (typeof value !== 'object' || value === null) {
    const got = value === null ? 'null' : `a ${typeof value}`;
    return {
      ok: false,
      failure: { kind: 'syntax', message: `expected an object at the top level, received ${got}` },
    };
  }
  // Fewer characters than either bound cannot pass it: most bodies skip the walk.
  if (body.length > Math.min(bounds.maxValues, 2 * bounds.maxDepth)) {
    const violation = checkJsonShape(value, bounds);
    if (violation) return { ok: false, failure: { kind: 'shape', violation, bounds } };
  }
  return { ok: true, value };
}
