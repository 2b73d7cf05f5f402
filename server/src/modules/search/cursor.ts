import { createHash } from 'node:crypto';
import { ServiceError } from '../../errors';

/**
 * Opaque cursors: base64url JSON carrying the position and a short hash of what they page
 * through, so a cursor from another query or collection is refused rather than misread.
 */
export interface CursorPosition {
  id: string;
  /** The score of the last hit, for search pages (exact double, so keyset paging is stable). */
  score?: number;
}

function fingerprint(context: string): string {
  return createHash('sha256').update(context).digest('base64url').slice(0, 16);
}

export function encodeCursor(position: CursorPosition, context: string): string {
  return Buffer.from(JSON.stringify({ ...position, f: fingerprint(context) })).toString('base64url');
}

export function decodeCursor(cursor: string, context: string): CursorPosition {
  const invalid = new ServiceError(
    'invalid_request',
    'Invalid cursor: pass the `next_cursor` of the previous page, with the same query, collection and filter.',
    { param: 'cursor', code: 'invalid_cursor' },
  );
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid;
  }
  if (value === null || typeof value !== 'object') throw invalid;
  const { id, score, f } = value as Record<string, unknown>;
  if (typeof id !== 'string' || f !== fingerprint(context)) throw invalid;
  if (score !== undefined && (typeof score !== 'number' || !Number.isFinite(score))) throw invalid;
  return score === undefined ? { id } : { id, score };
}
