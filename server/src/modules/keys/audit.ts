import type { ApiKeyRow } from '../../db/schema';
import { tokenBudgetOf } from './settings';

/**
 * What the audit log keeps of a key: its name and settings, and the masked form (prefix + last 4) that the
 * dashboard shows. Never the key, never its hash.
 */
export function keySnapshot(row: ApiKeyRow): Record<string, unknown> {
  return {
    name: row.name,
    kind: row.kind,
    last4: row.last4,
    scopes: row.scopes ?? null,
    models: row.models ?? null,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    requestsPerMinute: row.requestsPerMinute,
    tokenBudget: tokenBudgetOf(row),
    cacheTtlSeconds: row.cacheTtlSeconds,
  };
}

/** The fields an edit changed, each as `{ before, after }`. */
export function keyChanges(
  before: ApiKeyRow,
  after: ApiKeyRow,
): Record<string, { before: unknown; after: unknown }> {
  const a = keySnapshot(before);
  const b = keySnapshot(after);
  const out: Record<string, { before: unknown; after: unknown }> = {};
  for (const field of Object.keys(b)) {
    if (JSON.stringify(a[field]) !== JSON.stringify(b[field]))
      out[field] = { before: a[field], after: b[field] };
  }
  return out;
}
