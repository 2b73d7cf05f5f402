import { type AppConfig, configFromEnv } from './config';
import type { Ctx } from './context';
import { type Database, openDatabase } from './db/client';
import type { Env } from './env';
import type { AccountGate } from './lib/account-gate';
import { type Clock, systemClock } from './lib/clock';
import { countTenantDenials } from './lib/tenant-denial';
import { createLogger, type Logger } from './logger';
import { Metrics } from './metrics/registry';
import { MonthlyTokenAllowance, type TokenAllowance } from './modules/allowance';
import { createAnalyticsGate } from './modules/analytics';
import { AuthThrottle, PgAttemptStore, RedisAttemptStore } from './modules/auth-throttle';
import { SpendGuard } from './modules/budgets';
import { MemoryCacheStore, RedisCacheStore, ResponseCache } from './modules/cache';
import { ChatService } from './modules/chat';
import { CodeAnalyzer } from './modules/code-analysis';
import { EmbeddingService } from './modules/embeddings';
import { ApiKeyVerifier, LastUsedTracker } from './modules/keys';
import { ModelCatalogue } from './modules/models';
import type { ModelOwnership } from './modules/models/list';
import { ProviderRegistry } from './modules/providers';
import { MemoryRateLimitStore, RateLimiter, RedisRateLimitStore } from './modules/ratelimit';
import {
  createRouter,
  type DeploymentRouter,
  type DeploymentState,
  RedisRoutingSync,
} from './modules/routing';
import {
  createSearchGate,
  MemoryIndexes,
  SearchMaintenance,
  type SearchMaintenanceHooks,
} from './modules/search';
import { PgUsageStore, ThreadedUsageStore, UsageRecorder, type UsageStore } from './modules/usage';
import { SecretBox, WebhookDispatcher } from './modules/webhooks';
import { Tracing } from './telemetry/tracing';

/** Everything the transports need, built once per process. */
export interface Services {
  ctx: Ctx;
  database: Database;
  keys: ApiKeyVerifier;
  lastUsed: LastUsedTracker;
  /** Sign-in and sign-up attempt counters, shared by the instances (Redis, or the database). */
  authThrottle: AuthThrottle;
  catalogue: ModelCatalogue;
  ownership: ModelOwnership;
  allowance: TokenAllowance;
  /** Money budgets: worst-case cost held before a live call, settled after it; alerts (modules/budgets). */
  spend: SpendGuard;
  /** Webhook secrets at rest and the delivery loop (modules/webhooks). */
  webhookSecrets: SecretBox;
  webhooks: WebhookDispatcher;
  /** Static analysis in a pool of worker threads (started lazily, on the first request). */
  codeAnalyzer: CodeAnalyzer;
  /** Upstream model providers and the simulator. */
  providers: ProviderRegistry;
  /** The catalogue's models served by several deployments: their order, health and breakers (modules/routing). */
  router: DeploymentRouter;
  /** Chat completions: validation, token counting, provider calls, streaming. */
  chat: ChatService;
  /** Embeddings: validation, token counting, provider calls. */
  embeddings: EmbeddingService;
  /** The opt-in response cache of chat answers (modules/cache): in Redis when configured, else in process. */
  responseCache: ResponseCache;
  /** Per-minute request limits; `rateLimiter.metrics` counts Redis failures and fallback decisions. */
  rateLimiter: RateLimiter;
  /** Prometheus metrics served at /metrics. */
  metrics: Metrics;
  /** Usage metering: a bounded buffer written in batches (events and rollups). */
  usage: UsageRecorder;
  /** OpenTelemetry span export (OTEL_EXPORTER_OTLP_ENDPOINT); absent, and costing nothing, when off. */
  tracing: Tracing | undefined;
  /** Searches and indexing batches at once, each account held to its share (modules/search/gate.ts). */
  searchGate: AccountGate;
  /** Small collections' indexes in memory (modules/search/memory.ts); undefined when off. */
  searchMemory: MemoryIndexes | undefined;
  /** Usage analytics reads (GraphQL): an account's share of the database connections they hold. */
  analyticsGate: AccountGate;
  /** The search index's background work: converting old collections, merging blocks writes made due. */
  searchMaintenance: SearchMaintenance;
  /** Starts background work (cache sync, coalesced writes). */
  start(): void;
  /** Flushes pending writes and closes the database. */
  stop(): Promise<void>;
}

export interface ServiceOverrides {
  clock?: Clock;
  logger?: Logger;
  database?: Database;
  config?: Partial<AppConfig>;
  /** Wraps the usage store (tests simulate a database outage with it). */
  usageStore?: (store: UsageStore) => UsageStore;
  /** Holds the search index's background work at chosen points (tests observe the server meanwhile). */
  searchHooks?: SearchMaintenanceHooks;
}

export function createServices(env: Env, overrides: ServiceOverrides = {}): Services {
  const logger = overrides.logger ?? createLogger(env.LOG_LEVEL);
  const config = { ...configFromEnv(env), ...overrides.config };
  const database =
    overrides.database ??
    openDatabase({
      url: env.DATABASE_URL,
      ownerUrl: env.MIGRATION_DATABASE_URL,
      dataDir: env.DATA_DIR,
      timeoutMs: env.DATABASE_TIMEOUT_MS,
    });
  const clock = overrides.clock ?? systemClock;
  const ctx: Ctx = { db: database.db, clock, logger, config };
  const keys = new ApiKeyVerifier(ctx);
  const lastUsed = new LastUsedTracker(ctx);
  const catalogue = ModelCatalogue.fromFile(config.modelsFile);
  const redis = config.redisUrl
    ? new RedisRateLimitStore({
        url: config.redisUrl,
        commandTimeoutMs: config.redisCommandTimeoutMs,
        // An injected clock (tests) drives Redis too; in production the script reads Redis's clock.
        ...(overrides.clock && { clock: overrides.clock }),
      })
    : undefined;
  const rateLimiter = new RateLimiter({ memory: new MemoryRateLimitStore(clock), redis, logger });
  // Stops start-up on a deployment without its key, an unknown provider or a repeated name. Deployments' own
  // RPM/TPM are the rate limiter's buckets, shared by every instance on Redis (modules/routing/limits.ts).
  const router = createRouter(catalogue, config.chat.upstreamKeys, logger, rateLimiter, clock);
  // With Redis, deployments' breakers and 429 rests are shared by every instance (modules/routing/sync.ts);
  // without routed models there is nothing to share, and no connection is opened.
  const routingSync =
    config.redisUrl && !router.pairs().next().done
      ? new RedisRoutingSync(
          { url: config.redisUrl, commandTimeoutMs: config.redisCommandTimeoutMs },
          router,
          logger,
        )
      : undefined;
  if (routingSync) router.attach(routingSync);
  const authThrottle = new AuthThrottle({
    config: config.authThrottle,
    clock,
    logger,
    database: new PgAttemptStore(database.db),
    redis: redis && new RedisAttemptStore(redis.client, config.authThrottle.redisPrefix),
  });
  const providers = new ProviderRegistry({
    upstreams: config.chat.upstreams,
    simulatorTokenDelayMs: config.chat.simulatorTokenDelayMs,
    simulateUnconfigured: config.chat.simulateUnconfigured,
  });
  const ownership: ModelOwnership = providers;
  const chat = new ChatService({
    catalogue,
    providers,
    clock,
    logger,
    timeoutMs: config.modelTimeoutMs,
    keepAliveMs: config.chat.keepAliveMs,
    retry: { retries: config.chat.retries, backoffMs: config.chat.retryBackoffMs },
    router,
  });
  const cacheStore = config.redisUrl
    ? new RedisCacheStore({
        url: config.redisUrl,
        // Answers are larger than a rate-limit decision; a slow read is still a miss, never an error.
        commandTimeoutMs: Math.max(1_000, config.redisCommandTimeoutMs * 4),
        prefix: config.cache.redisPrefix,
        onError: (err) => responseCache.storeFailed(err),
      })
    : new MemoryCacheStore({
        maxEntries: config.cache.memoryMaxEntries,
        maxChars: config.cache.memoryMaxBytes,
        clock,
      });
  const responseCache: ResponseCache = new ResponseCache({
    store: cacheStore,
    clock,
    logger,
    prices: catalogue.prices,
  });
  const embeddings = new EmbeddingService({
    catalogue,
    providers,
    logger,
    timeoutMs: config.modelTimeoutMs,
    retry: { retries: config.chat.retries, backoffMs: config.chat.retryBackoffMs },
  });
  const metrics = new Metrics();
  countTenantDenials(logger, metrics);
  // On Postgres, written by a thread of its own with its own two connections (one for a long prune beside the
  // writes); PGlite lives in this thread, so it is written here.
  const usageThread =
    config.usage.writerThread && database.url
      ? new ThreadedUsageStore({ url: database.url, maxConnections: 2 }, logger)
      : undefined;
  // Background writes: not bound by the request path's DATABASE_TIMEOUT_MS (a prune may run long).
  const baseUsage: UsageStore = usageThread ?? new PgUsageStore(database.backgroundDb ?? database.db);
  const usage = new UsageRecorder(
    overrides.usageStore ? overrides.usageStore(baseUsage) : baseUsage,
    { clock, logger, metrics },
    config.usage,
  );
  metrics.gauge(
    'tessera_usage_buffer_depth',
    'Usage events waiting in memory to be written.',
    () => usage.depth,
  );
  const allowance = new MonthlyTokenAllowance(ctx, { leaseTokens: config.allowanceLeaseTokens });
  // Each routed deployment's breaker and availability, by model and deployment (modules/routing).
  const deploymentGauge = (name: string, help: string, value: (s: DeploymentState) => boolean) =>
    metrics.labelledGauge(name, help, ['model', 'deployment'], () =>
      Array.from(router.states(), (s) => ({
        labels: { model: s.model, deployment: s.deployment },
        value: value(s) ? 1 : 0,
      })),
    );
  deploymentGauge(
    'tessera_deployment_breaker_open',
    '1 while its circuit breaker is open or half-open.',
    (s) => s.open,
  );
  deploymentGauge(
    'tessera_deployment_available',
    '1 while it takes calls: breaker not open, no 429 rest, within its own RPM/TPM.',
    (s) => s.available,
  );
  metrics.externalCounter(
    'tessera_ratelimit_fallback_decisions_total',
    'Rate-limit decisions taken in process because Redis was unreachable.',
    () => rateLimiter.metrics.fallbackDecisions,
  );
  metrics.externalCounter(
    'tessera_ratelimit_redis_errors_total',
    'Rate-limit errors from Redis: failed or timed-out commands, and failures of the connection itself.',
    () => rateLimiter.metrics.redisErrors,
  );
  const cacheCounters = [
    ['hits', 'Chat requests answered from the response cache (keys that opted in).'],
    ['misses', 'Chat requests of keys with the response cache on that the model answered.'],
    [
      'store_errors',
      "Failures of the response cache's Redis (connection or command): lookups are misses meanwhile.",
    ],
  ] as const;
  for (const [name, help] of cacheCounters)
    metrics.externalCounter(`tessera_response_cache_${name}_total`, help, () =>
      name === 'store_errors' ? responseCache.counts.storeErrors : responseCache.counts[name],
    );
  const webhookSecrets = new SecretBox(config.secretsKey);
  if (config.env === 'production' && config.secretsKey === undefined)
    logger.warn(
      'SECRETS_ENCRYPTION_KEY is not set: webhook signing secrets are stored unencrypted in the database; set it to 32 random bytes (64 hex characters) to encrypt them.',
    );
  const webhooks = new WebhookDispatcher(ctx, webhookSecrets, config.webhooks);
  const spend = new SpendGuard(ctx, {
    currency: catalogue.prices.currency,
    onAlert: () => webhooks.wake(),
    leaseDivisor: config.spendLeaseDivisor,
  });
  const codeAnalyzer = new CodeAnalyzer(config.codeAnalysis, logger);
  const tracing = config.tracing && new Tracing(config.tracing);
  const searchMaintenance = new SearchMaintenance({
    db: database.backgroundDb ?? database.db,
    logger,
    ...(overrides.searchHooks && { hooks: overrides.searchHooks }),
  });
  return {
    ctx,
    codeAnalyzer,
    searchGate: createSearchGate(config.searchLimits),
    searchMemory:
      config.searchLimits.memory && config.searchLimits.memory.maxDocuments > 0
        ? new MemoryIndexes(config.searchLimits.memory)
        : undefined,
    analyticsGate: createAnalyticsGate(config.analyticsConcurrency),
    searchMaintenance,
    database,
    keys,
    lastUsed,
    authThrottle,
    catalogue,
    ownership,
    providers,
    router,
    chat,
    embeddings,
    responseCache,
    allowance,
    spend,
    webhookSecrets,
    webhooks,
    rateLimiter,
    metrics,
    usage,
    tracing,
    start() {
      usage.start();
      keys.start();
      lastUsed.start();
      rateLimiter.start();
      void routingSync?.start();
      if (cacheStore instanceof RedisCacheStore) cacheStore.connect();
      allowance.start();
      spend.start();
      webhooks.start();
      searchMaintenance.start();
    },
    async stop() {
      keys.stop();
      chat.close();
      await codeAnalyzer.close();
      await searchMaintenance.stop();
      await lastUsed.stop();
      await providers.close();
      await router.close();
      await routingSync?.close();
      await rateLimiter.stop();
      await cacheStore.close();
      // Gives back leased tokens and writes what they served.
      await allowance.stop();
      // Gives back leased money and writes what it served (and the alerts that raises, for the webhooks).
      await spend.stop();
      await webhooks.stop();
      // After the HTTP server has drained: every request's event is in the buffer by now.
      await usage.stop();
      await usageThread?.close();
      // After the last request was metered: its span is in the batch being sent.
      await tracing?.shutdown();
      await database.close();
    },
  };
}
