import { KEY_SCOPE_LABELS, type KeyScope } from '@tessera/shared';
import type { ApiKeyRow } from '../../db/schema';
import { ServiceError } from '../../errors';
import type { KeyAccess, Principal } from '../../principal';
import { tokenBudgetOf } from './settings';

/** The cached form of a key row's restrictions. */
export function accessOf(row: ApiKeyRow): KeyAccess {
  return {
    scopes: row.scopes ? new Set(row.scopes as KeyScope[]) : null,
    models: row.models ? new Set(row.models) : null,
    expiresAt: row.expiresAt?.getTime() ?? null,
    requestsPerMinute: row.requestsPerMinute,
    rateBucketKeyId: row.replacedById ?? row.id,
    tokenBudget: tokenBudgetOf(row),
    cacheTtlSeconds: row.cacheTtlSeconds,
    ownerUserId: row.ownerUserId,
  };
}

/** 403 `permission_denied` unless the key may call an endpoint of `scope`. */
export function requireScope(principal: Principal, scope: KeyScope): void {
  const scopes = principal.access?.scopes;
  if (!scopes || scopes.has(scope)) return;
  throw new ServiceError(
    'permission',
    `This API key is not allowed to call this endpoint: it lacks the '${scope}' scope (${KEY_SCOPE_LABELS[scope]}). The key's scopes: ${[...scopes].join(', ')}.`,
    { code: 'permission_denied', type: 'permission_denied' },
  );
}

/** Whether the key may use a model. */
export function allowsModel(principal: Principal, model: string): boolean {
  const models = principal.access?.models;
  return !models || models.has(model);
}

/** 403 `permission_denied` unless the key may use `model`. */
export function requireModel(principal: Principal, model: string, param: string | null = 'model'): void {
  if (allowsModel(principal, model)) return;
  throw new ServiceError(
    'permission',
    `This API key is not allowed to use the model '${model}'. Models allowed for this key: ${[...(principal.access?.models ?? [])].join(', ')}.`,
    { code: 'permission_denied', type: 'permission_denied', param },
  );
}
