import { type ApiKeyView, maskKey } from '@tessera/shared';
import type { ApiKeyRow } from '../../db/schema';

export function toKeyView(row: ApiKeyRow): ApiKeyView {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    masked: maskKey(row.kind, row.last4),
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
  };
}
