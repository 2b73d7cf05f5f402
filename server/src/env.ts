import { isIP } from 'node:net';
import { z } from 'zod';

const boolish = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const positiveInt = z.coerce.number().int().positive();

/** The origin `entry` names, as browsers write it in `Origin` (`https://app.example.com`), or null. */
function parseOrigin(entry: string): string | null {
  const url = URL.parse(entry);
  if (url?.pathname !== '/' || url.search || url.hash || url.username || url.password) return null;
  return /^https?:$/.test(url.protocol) && !url.hostname.includes('*') ? url.origin : null;
}

/** An http:// or https:// URL (a collector's, for OpenTelemetry). */
const httpUrl = z.string().refine((v) => /^https?:$/.test(URL.parse(v)?.protocol ?? ''), {
  error: 'must be an http:// or https:// URL',
});

/** OTLP's `key=value,key2=value2`, values percent-encoded. */
const otlpHeaders = z.string().transform((value, ctx): Record<string, string> => {
  const headers: Record<string, string> = {};
  for (const entry of value.split(',')) {
    if (entry.trim() === '') continue;
    const at = entry.indexOf('=');
    const name = entry.slice(0, at).trim();
    let decoded: string | undefined;
    try {
      decoded = at > 0 ? decodeURIComponent(entry.slice(at + 1).trim()) : undefined;
    } catch {
      decoded = undefined;
    }
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) || decoded === undefined) {
      // The value may hold a secret (a collector's API key): the message never repeats it.
      ctx.addIssue({
        code: 'custom',
        message: 'must be a comma-separated list of name=value (values percent-encoded)',
      });
      return z.NEVER;
    }
    headers[name.toLowerCase()] = decoded;
  }
  return headers;
});

/** `*`, or a comma-separated list of origins. */
const corsOrigins = z.string().transform((value, ctx): '*' | string[] => {
  if (value.trim() === '*') return '*';
  const entries = value.split(',').flatMap((e) => (e.trim() === '' ? [] : [e.trim()]));
  const origins = entries.map(parseOrigin);
  const bad = entries.filter((_, i) => origins[i] === null);
  if (entries.length === 0 || bad.length > 0) {
    const named = bad.length > 0 ? `; not origins: ${bad.join(', ')}` : '';
    ctx.addIssue({
      code: 'custom',
      message: `must be * or a list of origins (scheme://host[:port])${named}`,
    });
    return z.NEVER;
  }
  return origins.filter((o) => o !== null);
});

/** Names Express's `trust proxy` knows for address ranges. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isProxyAddress(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  const bits = Number(prefix);
  return /^\d{1,3}$/.test(prefix) && bits <= (version === 4 ? 32 : 128);
}

/**
 * Which proxies in front are trusted to say who the client is: `false` (none, the default), a number of hops
 * (`true` is 1: one proxy, e.g. nginx on the same host), or a list of proxy addresses and ranges
 * (`loopback, 10.0.0.0/8`). The client is then the right-most `X-Forwarded-For` entry not written by a trusted
 * proxy: a client can prepend whatever it likes, never append.
 */
const trustProxy = z.string().transform((value, ctx): false | number | string[] => {
  const v = value.trim().toLowerCase();
  if (['false', 'no', '0'].includes(v)) return false;
  if (['true', 'yes'].includes(v)) return 1;
  if (/^\d+$/.test(v)) return Number(v);
  const entries = v.split(',').flatMap((e) => (e.trim() === '' ? [] : [e.trim()]));
  const bad = entries.filter((e) => !isProxyAddress(e));
  if (entries.length === 0 || bad.length > 0) {
    ctx.addIssue({
      code: 'custom',
      message: `must be false, a number of proxies (hops), or a list of proxy addresses or CIDR ranges${bad.length > 0 ? `; not addresses: ${bad.join(', ')}` : ''}`,
    });
    return z.NEVER;
  }
  return entries;
});

const postgresUrl = z
  .string()
  .refine((v) => /^postgres(ql)?:\/\//.test(v), { error: 'must be a postgres:// or postgresql:// URL' });

/** SECRETS_ENCRYPTION_KEY's 32 bytes, from hex or base64; undefined when it is neither. */
export function secretKeyBytes(value: string): Buffer | undefined {
  const bytes = /^[0-9a-f]{64}$/i.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
  return bytes.length === 32 ? bytes : undefined;
}

/** The role a postgres:// URL names, or '' (postgres.js then takes PGUSER or the system user). */
function urlRole(url: string): string {
  return decodeURIComponent(URL.parse(url)?.username ?? '');
}

export const EnvSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    PORT: z.coerce.number().int().min(0).max(65535).default(8080),
    HOST: z.string().default('0.0.0.0'),
    DATABASE_URL: postgresUrl.optional(),
    /**
     * The tables' owner, when the server's DATABASE_URL role is not (docs/deployment.md, "Database roles"): the
     * migrations run as it, then the server serves as DATABASE_URL's role, which cannot rewrite the audit log.
     */
    MIGRATION_DATABASE_URL: postgresUrl.optional(),
    DATA_DIR: z.string().default('./.data'),
    /**
     * Postgres: how long a request waits for a connection or a statement's answer before it gets 503
     * `service_unavailable` (a database that hangs rather than refuses).
     */
    DATABASE_TIMEOUT_MS: positiveInt.default(3_000),
    REDIS_URL: z
      .string()
      .refine((v) => /^rediss?:\/\//.test(v), { error: 'must be a redis:// or rediss:// URL' })
      .optional(),
    /** Rate-limit calls to Redis slower than this fall back to the in-process limiter. */
    REDIS_COMMAND_TIMEOUT_MS: positiveInt.default(250),
    /**
     * The response cache (docs/caching.md) without Redis: answers kept in process, at most this many and this many
     * MB of JSON, least recently used dropped first. With REDIS_URL the answers are kept in Redis instead.
     */
    CACHE_MEMORY_MAX_ENTRIES: positiveInt.max(10_000_000).default(10_000),
    CACHE_MEMORY_MB: positiveInt.max(65_536).default(64),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    BODY_LIMIT_BYTES: positiveInt.default(1024 * 1024),
    /** Chat requests carry inline images (base64 data: URLs): their own, larger limit. */
    CHAT_BODY_LIMIT_BYTES: positiveInt.default(20 * 1024 * 1024),
    /** Embeddings requests carry up to 300,000 tokens of text (a few MB in scripts of several bytes a letter). */
    EMBEDDINGS_BODY_LIMIT_BYTES: positiveInt.default(8 * 1024 * 1024),
    /**
     * How many JSON values (objects, arrays, strings, numbers, booleans, nulls) a request body may hold, and how
     * deeply nested: what is done with a body after parsing costs time in proportion to them (lib/json-shape.ts).
     */
    BODY_MAX_JSON_VALUES: positiveInt.default(100_000),
    BODY_MAX_JSON_DEPTH: positiveInt.default(128),
    MODEL_TIMEOUT_MS: positiveInt.default(30_000),
    /** A request's headers must arrive within this (from its first byte), or the connection gets 408. */
    HEADERS_TIMEOUT_MS: positiveInt.default(10_000),
    /** A request's body must arrive within this once it is read (REST: 408 in OpenAI's body). */
    BODY_TIMEOUT_MS: positiveInt.default(30_000),
    SHUTDOWN_GRACE_MS: positiveInt.default(10_000),
    /**
     * Server processes sharing the port (node:cluster), `auto` for one per CPU. More than one needs PostgreSQL and
     * Redis, which keep keys, limits and usage exact across processes as across instances; unset, `auto` with
     * both, else 1 (the embedded database belongs to one process).
     */
    WORKERS: z.union([z.literal('auto'), positiveInt.max(256)]).optional(),
    SESSION_TTL_HOURS: positiveInt.default(24 * 30),
    COOKIE_SECURE: boolish.optional(),
    TRUST_PROXY: trustProxy.default(false),
    SEED_DEMO: boolish.default(true),
    MODELS_FILE: z.string().optional(),
    /** Code analysis: largest `code` accepted, time limit per analysis, worker threads, queued analyses. */
    CODE_ANALYSIS_MAX_BYTES: positiveInt.default(512 * 1024),
    CODE_ANALYSIS_TIMEOUT_MS: positiveInt.default(10_000),
    CODE_ANALYSIS_WORKERS: positiveInt.max(64).default(2),
    CODE_ANALYSIS_MAX_QUEUE: positiveInt.default(64),
    /** The most workers one account's analyses hold at once (default half the workers, at least 1), and wait for. */
    CODE_ANALYSIS_WORKERS_PER_ACCOUNT: positiveInt.optional(),
    CODE_ANALYSIS_QUEUE_PER_ACCOUNT: positiveInt.default(8),
    /** Upstream providers; a provider without its URL or key is not configured and the simulator stands in. */
    OPENAI_BASE_URL: z.url().optional(),
    OPENAI_API_KEY: z.string().optional(),
    ANTHROPIC_BASE_URL: z.url().optional(),
    ANTHROPIC_API_KEY: z.string().optional(),
    /** Pace of the built-in simulator's streams, per token. */
    SIMULATOR_TOKEN_DELAY_MS: z.coerce.number().int().min(0).default(15),
    /** A comment line is sent on a stream silent for this long. */
    STREAM_KEEPALIVE_MS: positiveInt.default(15_000),
    /**
     * A streaming client that reads nothing for this long while its connection's buffers are full is cut off
     * (its tokens so far metered); until then its stream, and the upstream's, wait for it.
     */
    STREAM_CLIENT_STALL_MS: positiveInt.default(30_000),
    /** Retries of a failed upstream call before the first byte, and the first backoff. */
    UPSTREAM_RETRIES: z.coerce.number().int().min(0).max(5).default(2),
    UPSTREAM_RETRY_BACKOFF_MS: z.coerce.number().int().min(0).default(200),
    PLAN_FREE_RPM: positiveInt.default(100),
    PLAN_FREE_MONTHLY_TOKENS: positiveInt.default(100_000),
    PLAN_PRO_RPM: positiveInt.default(1_000),
    PLAN_PRO_MONTHLY_TOKENS: positiveInt.default(10_000_000),
    /** Enterprise defaults, used until an operator sets the account's custom limits. */
    PLAN_ENTERPRISE_RPM: positiveInt.default(10_000),
    PLAN_ENTERPRISE_MONTHLY_TOKENS: positiveInt.default(100_000_000),
    /**
     * Token allowance leases: an instance holds up to this many of an account's tokens at a time and admits
     * calls against them in memory, while the account has at least 16 leases' worth left; 0 reserves every
     * call in the database.
     */
    ALLOWANCE_LEASE_TOKENS: z.coerce.number().int().min(0).default(100_000),
    /**
     * A money budget's lease is its amount ÷ this (at least twice the call): while a budget has 16 leases' worth
     * left, an instance admits its calls against a lease in memory (docs/budgets.md); 0 reserves every call in
     * the database.
     */
    SPEND_LEASE_DIVISOR: z.coerce.number().int().min(0).max(1_000_000).default(256),
    /**
     * 32 bytes (64 hex characters, or base64) that encrypt the webhook signing secrets at rest (AES-256-GCM);
     * unset, they are stored as they are (modules/webhooks/secret-box.ts).
     */
    SECRETS_ENCRYPTION_KEY: z
      .string()
      .refine((v) => secretKeyBytes(v) !== undefined, {
        error: 'must be 32 bytes: 64 hex characters or 44 base64 characters',
      })
      .optional(),
    /** Webhook deliveries: how often an instance looks for due ones, the first retry's wait, attempts, time limit. */
    WEBHOOK_POLL_MS: positiveInt.default(1_000),
    WEBHOOK_RETRY_BASE_MS: positiveInt.default(10_000),
    WEBHOOK_MAX_ATTEMPTS: positiveInt.max(30).default(10),
    WEBHOOK_TIMEOUT_MS: positiveInt.max(60_000).default(10_000),
    /**
     * Whether webhooks may go to loopback, private, link-local and other non-public addresses (a receiver on the
     * developer's machine). Unset: allowed outside production, refused in production (SSRF; modules/webhooks/addresses.ts).
     */
    WEBHOOK_ALLOW_PRIVATE_ADDRESSES: boolish.optional(),
    /** Search indexing: documents per POST /api/documents, and bytes per document. */
    SEARCH_MAX_BATCH_DOCUMENTS: positiveInt.max(10_000).default(100),
    SEARCH_MAX_DOCUMENT_BYTES: positiveInt.max(500_000).default(100_000),
    SEARCH_STATEMENT_TIMEOUT_MS: positiveInt.max(600_000).default(2_500),
    /** Estimated matches past which a search ranks a bounded candidate set (`approximate: true`) instead of every match. */
    SEARCH_EXACT_MAX_MATCHES: positiveInt.max(100_000_000).default(20_000),
    /**
     * Collections of at most this many documents are searched from an index in memory (modules/search/memory.ts; 0:
     * never), all of them together within SEARCH_MEMORY_MB (estimated), least recently used dropped first.
     */
    SEARCH_MEMORY_MAX_DOCUMENTS: z.coerce.number().int().min(0).max(1_000_000).default(10_000),
    SEARCH_MEMORY_MB: positiveInt.max(65_536).default(128),
    /**
     * Searches and indexing batches running at once on an instance (each holds a database connection of the pool of
     * 10), and one account's share of them; more of one account's wait in turn, up to SEARCH_QUEUE_PER_ACCOUNT.
     */
    SEARCH_MAX_CONCURRENT: positiveInt.max(1_000).default(8),
    SEARCH_MAX_CONCURRENT_PER_ACCOUNT: positiveInt.max(1_000).default(4),
    SEARCH_QUEUE_PER_ACCOUNT: positiveInt.max(10_000).default(16),
    /**
     * Usage analytics read by GraphQL (aggregates over the rollups and events) running at once on an instance, one
     * account's share of them, and how many more of one account's may wait; like the search's. The queue holds
     * more than the aggregates one request may ask within GraphQL's cost limit (5,000 / 100 = 50), so that a single
     * costly request waits in turn rather than being partly refused.
     */
    ANALYTICS_MAX_CONCURRENT: positiveInt.max(1_000).default(6),
    ANALYTICS_MAX_CONCURRENT_PER_ACCOUNT: positiveInt.max(1_000).default(3),
    ANALYTICS_QUEUE_PER_ACCOUNT: positiveInt.max(10_000).default(64),
    /** Usage metering: in-memory buffer bound, batch size and write interval, retention of raw events. */
    USAGE_BUFFER_MAX: positiveInt.default(100_000),
    USAGE_BATCH_SIZE: positiveInt.default(500),
    USAGE_FLUSH_INTERVAL_MS: positiveInt.default(1_000),
    USAGE_WRITER_THREAD: boolish.default(true),
    USAGE_EVENT_RETENTION_DAYS: positiveInt.default(30),
    USAGE_MINUTE_ROLLUP_RETENTION_DAYS: positiveInt.default(3),
    /**
     * Bearer token for scraping: with it, `GET /metrics` is also served on the public port (token required there
     * and on the metrics listener); without it, only the metrics listener serves it.
     */
    METRICS_TOKEN: z.string().min(16, { error: 'must be at least 16 characters' }).optional(),
    /**
     * The metrics listener: `GET /metrics` on its own port, loopback by default, which a reverse proxy for the
     * public port does not forward. `off` turns it off; unset, 9464 (0, a free port, when NODE_ENV=test).
     */
    METRICS_PORT: z.union([z.literal('off'), z.coerce.number().int().min(0).max(65535)]).optional(),
    METRICS_HOST: z.string().default('127.0.0.1'),
    /**
     * Origins whose pages may call the public API (/v1, /api) from a browser: a comma-separated list, or `*`.
     * Unset, no origin may: keys belong in backend servers, and a key in a page is anyone's who loads it.
     */
    CORS_ORIGINS: corsOrigins.optional(),
    /**
     * OpenTelemetry export (telemetry/tracing.ts): a span per metered request, GenAI attributes on model calls,
     * sent over OTLP/HTTP (JSON) to `<endpoint>/v1/traces`, or to the traces endpoint given whole. Off when unset.
     */
    OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl.optional(),
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: httpUrl.optional(),
    /** Headers for the collector (`api-key=…,x-tenant=…`, values percent-encoded as the OpenTelemetry spec says). */
    OTEL_EXPORTER_OTLP_HEADERS: otlpHeaders.optional(),
    OTEL_SERVICE_NAME: z.string().min(1).default('tessera'),
    /** How long finished spans wait to be sent together (the batch span processor's delay). */
    OTEL_BSP_SCHEDULE_DELAY: positiveInt.default(5_000),
  })
  .superRefine((env, ctx) => {
    if (typeof env.WORKERS === 'number' && env.WORKERS > 1 && !(env.DATABASE_URL && env.REDIS_URL))
      ctx.addIssue({
        code: 'custom',
        path: ['WORKERS'],
        message:
          'more than one server process needs DATABASE_URL and REDIS_URL (the embedded database and the in-process limiter belong to one process)',
      });
    if (env.MIGRATION_DATABASE_URL === undefined) return;
    const issue = (message: string) =>
      ctx.addIssue({ code: 'custom', path: ['MIGRATION_DATABASE_URL'], message });
    if (env.DATABASE_URL === undefined)
      return issue("needs DATABASE_URL (the server's own role); the embedded database has no roles");
    const app = urlRole(env.DATABASE_URL);
    // The role is granted by name (db/app-role.ts), so it must be written where everyone reads it.
    if (!app) return issue('needs DATABASE_URL to name its role (postgres://ROLE:PASSWORD@host/db)');
    if (app === urlRole(env.MIGRATION_DATABASE_URL))
      return issue(
        `names the same role as DATABASE_URL ("${app}"): the server's role must not own the tables`,
      );
  });
export type Env = z.infer<typeof EnvSchema> & {
  /**
   * Every `*_API_KEY` variable, for the model catalogue's deployments, which name the variable holding their key
   * (`api_key_env`; modules/routing). Only that suffix is collected: a deployment cannot be pointed at any
   * other secret of the environment.
   */
  UPSTREAM_API_KEYS: Record<string, string>;
};

/**
 * Parses the environment once, at start-up; the only place that reads `process.env`. `defaults` are a
 * program's own defaults (the CLI logs less), used where the environment says nothing.
 */
export function parseEnv(source: NodeJS.ProcessEnv = process.env, defaults: NodeJS.ProcessEnv = {}): Env {
  const cleaned = Object.fromEntries(
    Object.entries({ ...defaults, ...source }).filter(([, v]) => v !== undefined && v !== ''),
  );
  const result = EnvSchema.safeParse(cleaned);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new Error(`Invalid environment configuration:\n${lines.join('\n')}`);
  }
  const keys: Record<string, string> = {};
  for (const [name, value] of Object.entries(cleaned)) {
    if (name.endsWith('_API_KEY') && typeof value === 'string') keys[name] = value;
  }
  return { ...result.data, UPSTREAM_API_KEYS: keys };
}
