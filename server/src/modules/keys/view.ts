import { type ApiKeyView, type KeyScope, type KeyState, maskKey } from '@tessera/shared';
import type { ApiKeyRow } from '../../db/schema';
import { tokenBudgetOf } from './settings';

/** A key's state at `now`: revoked, expired (its expiry or its rotation's grace has passed), rotating, active. */
export function keyState(row: ApiKeyRow, now: number): KeyState {
  if (row.revokedAt) return 'revoked';
  if (row.expiresAt && row.expiresAt.getTime() <= now) return 'expired';
  if (row.replacedById) return 'rotating';
  return 'active';
}

export function toKeyView(row: ApiKeyRow, now: number): ApiKeyView {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    masked: maskKey(row.kind, row.last4),
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
    scopes: (row.scopes as KeyScope[] | null) ?? null,
    models: row.models ?? null,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    requestsPerMinute: row.requestsPerMinute,
    tokenBudget: tokenBudgetOf(row),
    cacheTtlSeconds: row.cacheTtlSeconds,
    state: keyState(row, now),
    replacedById: row.replacedById,
    ownerUserId: row.ownerUserId,
  };
}
