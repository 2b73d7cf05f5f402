import { type Env, secretKeyBytes } from './env';
import type { AccountGateOptions } from './lib/account-gate';
import type { JsonBounds } from './lib/json-shape';
import { type AuthThrottleConfig, DEFAULT_AUTH_THROTTLE } from './modules/auth-throttle';
import type { PlanDefaults } from './modules/plans';
import { type ChatConfig, chatConfigFromEnv } from './modules/providers/config';
import type { SearchLimits } from './modules/search/limits';
import type { TracingConfig } from './telemetry/tracing';

/** Configuration handed to modules; derived from the environment once. */
export interface AppConfig {
  env: Env['NODE_ENV'];
  bodyLimitBytes: number;
  /** How long a request's headers, then its body, may take to arrive (slow clients hold connections). */
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  /** The limit for chat completion requests, whose inline images are large. */
  chatBodyLimitBytes: number;
  /** The limit for embeddings requests: up to 2,048 inputs and 300,000 tokens. */
  embeddingsBodyLimitBytes: number;
  /** What a JSON body may hold once parsed: values and nesting (lib/json-shape.ts). */
  bodyBounds: JsonBounds;
  modelTimeoutMs: number;
  sessionTtlMs: number;
  cookieSecure: boolean | 'auto';
  /** Express's `trust proxy`: how many proxies (hops) or which proxy addresses to trust; false for none. */
  trustProxy: Env['TRUST_PROXY'];
  /** Sign-in and sign-up throttling (modules/auth-throttle). */
  authThrottle: AuthThrottleConfig;
  planDefaults: PlanDefaults;
  modelsFile: string | undefined;
  codeAnalysis: {
    maxBytes: number;
    timeoutMs: number;
    workers: number;
    maxQueue: number;
    workersPerAccount: number | undefined;
    queuePerAccount: number;
  };
  chat: ChatConfig;
  metrics: {
    /** Required on both listeners when set; it alone mounts /metrics on the public port. */
    token: string | undefined;
    /** The metrics listener's port (0: any free one), or null when it is off. */
    port: number | null;
    host: string;
  };
  usage: {
    maxBuffered: number;
    batchSize: number;
    flushIntervalMs: number;
    eventRetentionDays: number;
    minuteRollupRetentionDays: number;
    /** On Postgres, usage is written by a thread of its own (modules/usage/writer-thread.ts). */
    writerThread: boolean;
  };
  searchLimits: SearchLimits;
  /** Usage analytics queries at once: per instance, per account, and waiting per account. */
  analyticsConcurrency: AccountGateOptions;
  /** Tokens an instance leases from an account's allowance at a time (0: a database write per call). */
  allowanceLeaseTokens: number;
  /** A money budget's lease is its amount ÷ this (modules/budgets/leases.ts); 0 reserves every call in the database. */
  spendLeaseDivisor: number;
  /** Webhook deliveries (modules/webhooks) and the key that encrypts their secrets at rest. */
  webhooks: {
    pollMs: number;
    retryBaseMs: number;
    maxAttempts: number;
    timeoutMs: number;
    allowPrivate: boolean;
  };
  secretsKey: Buffer | undefined;
  /** The response cache's store in process, when Redis is not configured (modules/cache). */
  cache: { memoryMaxEntries: number; memoryMaxBytes: number; redisPrefix: string };
  /** Shared rate-limit store; in process when absent. */
  redisUrl: string | undefined;
  redisCommandTimeoutMs: number;
  /** Origins allowed to call the public API from a browser (CORS); none by default. */
  corsOrigins: NonNullable<Env['CORS_ORIGINS']>;
  /** OpenTelemetry span export; undefined (off) unless an OTLP endpoint is set. */
  tracing: TracingConfig | undefined;
}

/** Prometheus exporters' customary port (OpenTelemetry's Prometheus exporter uses it too). */
export const DEFAULT_METRICS_PORT = 9464;

export function configFromEnv(env: Env): AppConfig {
  return {
    env: env.NODE_ENV,
    bodyLimitBytes: env.BODY_LIMIT_BYTES,
    headersTimeoutMs: env.HEADERS_TIMEOUT_MS,
    bodyTimeoutMs: env.BODY_TIMEOUT_MS,
    chatBodyLimitBytes: env.CHAT_BODY_LIMIT_BYTES,
    embeddingsBodyLimitBytes: env.EMBEDDINGS_BODY_LIMIT_BYTES,
    bodyBounds: { maxValues: env.BODY_MAX_JSON_VALUES, maxDepth: env.BODY_MAX_JSON_DEPTH },
    modelTimeoutMs: env.MODEL_TIMEOUT_MS,
    sessionTtlMs: env.SESSION_TTL_HOURS * 3_600_000,
    cookieSecure: env.COOKIE_SECURE ?? 'auto',
    trustProxy: env.TRUST_PROXY,
    authThrottle: DEFAULT_AUTH_THROTTLE,
    planDefaults: {
      free: { requestsPerMinute: env.PLAN_FREE_RPM, monthlyTokens: env.PLAN_FREE_MONTHLY_TOKENS },
      pro: { requestsPerMinute: env.PLAN_PRO_RPM, monthlyTokens: env.PLAN_PRO_MONTHLY_TOKENS },
      enterprise: {
        requestsPerMinute: env.PLAN_ENTERPRISE_RPM,
        monthlyTokens: env.PLAN_ENTERPRISE_MONTHLY_TOKENS,
      },
    },
    modelsFile: env.MODELS_FILE,
    codeAnalysis: {
      maxBytes: env.CODE_ANALYSIS_MAX_BYTES,
      timeoutMs: env.CODE_ANALYSIS_TIMEOUT_MS,
      workers: env.CODE_ANALYSIS_WORKERS,
      maxQueue: env.CODE_ANALYSIS_MAX_QUEUE,
      workersPerAccount: env.CODE_ANALYSIS_WORKERS_PER_ACCOUNT,
      queuePerAccount: env.CODE_ANALYSIS_QUEUE_PER_ACCOUNT,
    },
    chat: chatConfigFromEnv(env),
    metrics: {
      token: env.METRICS_TOKEN,
      port:
        env.METRICS_PORT === 'off'
          ? null
          : (env.METRICS_PORT ?? (env.NODE_ENV === 'test' ? 0 : DEFAULT_METRICS_PORT)),
      host: env.METRICS_HOST,
    },
    usage: {
      maxBuffered: env.USAGE_BUFFER_MAX,
      batchSize: env.USAGE_BATCH_SIZE,
      flushIntervalMs: env.USAGE_FLUSH_INTERVAL_MS,
      eventRetentionDays: env.USAGE_EVENT_RETENTION_DAYS,
      minuteRollupRetentionDays: env.USAGE_MINUTE_ROLLUP_RETENTION_DAYS,
      writerThread: env.USAGE_WRITER_THREAD,
    },
    searchLimits: {
      concurrency: {
        total: env.SEARCH_MAX_CONCURRENT,
        perAccount: Math.min(env.SEARCH_MAX_CONCURRENT_PER_ACCOUNT, env.SEARCH_MAX_CONCURRENT),
        queuePerAccount: env.SEARCH_QUEUE_PER_ACCOUNT,
      },
      maxBatchDocuments: env.SEARCH_MAX_BATCH_DOCUMENTS,
      maxDocumentBytes: env.SEARCH_MAX_DOCUMENT_BYTES,
      exactMaxMatches: env.SEARCH_EXACT_MAX_MATCHES,
      memory: { maxDocuments: env.SEARCH_MEMORY_MAX_DOCUMENTS, maxBytes: env.SEARCH_MEMORY_MB * 1024 * 1024 },
      // Postgres stops a search before the request's own database deadline gives up on it: the client then
      // hears 503 `search_timeout` (its query was too costly), not `service_unavailable`, and the connection
      // is free again rather than still running the statement.
      statementTimeoutMs: Math.min(
        env.SEARCH_STATEMENT_TIMEOUT_MS,
        Math.max(100, env.DATABASE_TIMEOUT_MS - 500),
      ),
    },
    analyticsConcurrency: {
      total: env.ANALYTICS_MAX_CONCURRENT,
      perAccount: Math.min(env.ANALYTICS_MAX_CONCURRENT_PER_ACCOUNT, env.ANALYTICS_MAX_CONCURRENT),
      queuePerAccount: env.ANALYTICS_QUEUE_PER_ACCOUNT,
    },
    allowanceLeaseTokens: env.ALLOWANCE_LEASE_TOKENS,
    spendLeaseDivisor: env.SPEND_LEASE_DIVISOR,
    webhooks: {
      pollMs: env.WEBHOOK_POLL_MS,
      retryBaseMs: env.WEBHOOK_RETRY_BASE_MS,
      maxAttempts: env.WEBHOOK_MAX_ATTEMPTS,
      timeoutMs: env.WEBHOOK_TIMEOUT_MS,
      allowPrivate: env.WEBHOOK_ALLOW_PRIVATE_ADDRESSES ?? env.NODE_ENV !== 'production',
    },
    secretsKey:
      env.SECRETS_ENCRYPTION_KEY === undefined ? undefined : secretKeyBytes(env.SECRETS_ENCRYPTION_KEY),
    redisUrl: env.REDIS_URL,
    cache: {
      memoryMaxEntries: env.CACHE_MEMORY_MAX_ENTRIES,
      memoryMaxBytes: env.CACHE_MEMORY_MB * 1024 * 1024,
      redisPrefix: 'tessera:cache:',
    },
    redisCommandTimeoutMs: env.REDIS_COMMAND_TIMEOUT_MS,
    corsOrigins: env.CORS_ORIGINS ?? [],
    tracing: tracingConfigFromEnv(env),
  };
}

/** OTLP's rule: the traces endpoint as given, else the general endpoint with `/v1/traces` appended. */
function tracingConfigFromEnv(env: Env): TracingConfig | undefined {
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  const url = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (base && `${base.replace(/\/+$/, '')}/v1/traces`);
  if (!url) return undefined;
  return {
    url,
    headers: env.OTEL_EXPORTER_OTLP_HEADERS ?? {},
    serviceName: env.OTEL_SERVICE_NAME,
    scheduleDelayMs: env.OTEL_BSP_SCHEDULE_DELAY,
  };
}
