import { sql } from 'drizzle-orm';
import { bigint, index, integer, pgTable, real, smallint, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * One row per metered API request (REST and keyed GraphQL). No foreign keys on purpose: a batch must never
 * fail because an account was deleted while its events waited in the buffer. Pruned after the retention.
 */
export const usageEvents = pgTable(
  'usage_events',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    occurredAt: timestamp('occurred_at', { withTimezone: true, mode: 'date' }).notNull(),
    requestId: text('request_id').notNull(),
    accountId: text('account_id').notNull(),
    keyId: text('key_id').notNull(),
    mode: text('mode', { enum: ['live', 'test'] }).notNull(),
    method: text('method').notNull(),
    /** The route template (`/v1/models/:id`), never the raw path. */
    route: text('route').notNull(),
    /** HTTP status; 499 when the client went away before the response ended. */
    status: smallint('status').notNull(),
    latencyMs: real('latency_ms').notNull(),
    model: text('model'),
    /**
     * Who answered a model call, as `x-tessera-provider` said: the deployment of a routed model
     * (modules/routing), else the provider (`openai`, `anthropic`, `simulator`); the last one tried when the call
     * failed; null for a request that reached no model.
     */
    deployment: text('deployment'),
    promptTokens: integer('prompt_tokens'),
    completionTokens: integer('completion_tokens'),
    /** The tokens' cost at the model's price that day, in micro-units of the catalogue's currency; null unpriced. */
    costMicros: bigint('cost_micros', { mode: 'number' }),
    /** The response cache's part (modules/cache): `hit` (answered from it, cost 0) or `miss`; null when off. */
    cache: text('cache', { enum: ['hit', 'miss'] }),
    /** A hit's saving: what the cached answer cost when the model made it, in micro-units. */
    savedMicros: bigint('saved_micros', { mode: 'number' }),
    errorType: text('error_type'),
    errorCode: text('error_code'),
    errorMessage: text('error_message'),
  },
  (t) => [
    // The dashboard's recent errors: newest first per account, errors only.
    index('usage_events_errors_idx')
      .on(t.accountId, t.occurredAt.desc(), t.id.desc())
      .where(sql`${t.status} >= 400`),
    // Retention pruning deletes by time. BRIN, not B-tree: tiny on an append-only table, and unable to supply
    // an ORDER BY, so the planner never walks it backwards looking for one account's errors (seconds on an
    // account without errors) instead of using the partial index above.
    index('usage_events_occurred_brin').using('brin', t.occurredAt),
  ],
);

export type UsageEventRow = typeof usageEvents.$inferSelect;
export type NewUsageEventRow = typeof usageEvents.$inferInsert;
