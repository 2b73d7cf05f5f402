import type { KeyKind, KeySettings, KeyTokenBudget, PlanLimits } from '@tessera/shared';
import type { ApiKeyRow } from '../../db/schema';
import { ServiceError } from '../../errors';

/** The columns of `api_keys` that hold a key's settings. */
export type KeySettingColumns = Pick<
  ApiKeyRow,
  | 'scopes'
  | 'models'
  | 'expiresAt'
  | 'requestsPerMinute'
  | 'budgetTokens'
  | 'budgetPeriod'
  | 'cacheTtlSeconds'
>;

/** What a settings check needs besides the input: the plan's limits, the catalogue, the time. */
export interface SettingsContext {
  limits: PlanLimits;
  kind: KeyKind;
  /** Whether a model id is in the catalogue. */
  modelExists: (id: string) => boolean;
  now: number;
}

/**
 * Checks settings against the account's plan and the catalogue and turns them into column values. Only the
 * fields present in `input` are returned (an edit leaves the others as they are); `null` clears a restriction.
 * Scopes and models are de-duplicated and sorted, so that equal settings read the same.
 */
export function settingColumns(input: KeySettings, context: SettingsContext): Partial<KeySettingColumns> {
  const out: Partial<KeySettingColumns> = {};
  if (input.scopes !== undefined)
    out.scopes = input.scopes === null ? null : [...new Set(input.scopes)].sort();
  if (input.models !== undefined) {
    if (input.models !== null) {
      const unknown = input.models.find((m) => !context.modelExists(m));
      if (unknown !== undefined)
        throw invalid('models', `Unknown model '${unknown}' in models: list ids of GET /v1/models.`);
    }
    out.models = input.models === null ? null : [...new Set(input.models)].sort();
  }
  if (input.expiresAt !== undefined) {
    if (input.expiresAt !== null && Date.parse(input.expiresAt) <= context.now)
      throw invalid('expiresAt', `expiresAt must be in the future; ${input.expiresAt} has passed.`);
    out.expiresAt = input.expiresAt === null ? null : new Date(input.expiresAt);
  }
  if (input.requestsPerMinute !== undefined) {
    const planRpm = context.limits.requestsPerMinute;
    if (input.requestsPerMinute !== null && input.requestsPerMinute > planRpm)
      throw invalid(
        'requestsPerMinute',
        `requestsPerMinute must be within the plan's limit of ${planRpm} requests per minute; got ${input.requestsPerMinute}.`,
      );
    out.requestsPerMinute = input.requestsPerMinute;
  }
  if (input.tokenBudget !== undefined) {
    const monthly = context.limits.monthlyTokens;
    if (input.tokenBudget !== null && context.kind === 'test')
      throw invalid(
        'tokenBudget',
        'A token budget applies to live keys only: test keys are served by the simulator and consume no tokens.',
      );
    if (input.tokenBudget !== null && input.tokenBudget.tokens > monthly)
      throw invalid(
        'tokenBudget.tokens',
        `tokenBudget.tokens must be within the plan's monthly allowance of ${monthly} tokens; got ${input.tokenBudget.tokens}.`,
      );
    out.budgetTokens = input.tokenBudget?.tokens ?? null;
    out.budgetPeriod = input.tokenBudget?.period ?? null;
  }
  if (input.cacheTtlSeconds !== undefined) out.cacheTtlSeconds = input.cacheTtlSeconds;
  return out;
}

export function tokenBudgetOf(row: Pick<ApiKeyRow, 'budgetTokens' | 'budgetPeriod'>): KeyTokenBudget | null {
  return row.budgetTokens !== null && row.budgetPeriod !== null
    ? { tokens: row.budgetTokens, period: row.budgetPeriod }
    : null;
}

function invalid(param: string, message: string): ServiceError {
  return new ServiceError('invalid_request', message, { param, code: 'invalid_value' });
}
