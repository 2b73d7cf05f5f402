/**
 * Tessera set up for the gateway benchmarks: three models (`bench-model`, `bench-routed` served by two
 * deployments of the same upstream, and `bench-long` with a context of 1M tokens) routed to a fake OpenAI upstream, an enterprise account with room for any load, on a fresh Postgres
 * database when TEST_DATABASE_URL is set (dropped at exit), else embedded PGlite. Used by tessera.ts (the
 * benchmark's server) and maps.ts.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEnv } from '../../server/src/env';
import { createAccount, setPlan } from '../../server/src/modules/accounts';
import { createKey } from '../../server/src/modules/keys';
import { createServices, type ServiceOverrides, type Services } from '../../server/src/services';
import { openTestDatabase } from '../../server/test/helpers/database';

/**
 * The settings (environment variables) Tessera runs with in the gateway benchmarks: the models file (written into
 * a temporary folder) routed to the fake upstream, an enterprise plan with room for any load, `NODE_ENV=production`;
 * `settings` adds or overrides. Also what tessera-cluster.ts hands the built server's processes.
 */
export function benchSettings(
  upstreamUrl: string,
  settings: Record<string, string | undefined>,
): Record<string, string | undefined> {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-bench-'));
  const models = join(dir, 'models.json');
  writeFileSync(
    models,
    JSON.stringify({
      models: [
        {
          id: 'bench-model',
          provider: 'openai',
          upstream_model: 'ok',
          context_window: 8192,
          max_output_tokens: 512,
          description: 'fake upstream',
          created: 1767225600,
        },
        {
          // The same upstream through routing (routing.ts): two deployments sharing its calls by weight.
          id: 'bench-routed',
          provider: 'openai',
          upstream_model: 'ok',
          context_window: 8192,
          max_output_tokens: 512,
          description: 'fake upstream, two deployments',
          created: 1767225600,
          deployments: ['bench-a', 'bench-b'].map((name) => ({
            name,
            base_url: `${upstreamUrl}/v1`,
            api_key_env: 'BENCH_UPSTREAM_API_KEY',
          })),
          routing: { strategy: 'weighted' },
        },
        {
          // For long prompts (long-prompts.ts).
          id: 'bench-long',
          provider: 'openai',
          upstream_model: 'ok',
          context_window: 1_048_576,
          max_output_tokens: 512,
          description: 'fake upstream, long context',
          created: 1767225600,
        },
      ],
    }),
  );
  return {
    NODE_ENV: 'production',
    METRICS_PORT: '0',
    DATA_DIR: join(dir, 'data'),
    MODELS_FILE: models,
    OPENAI_BASE_URL: `${upstreamUrl}/v1`,
    OPENAI_API_KEY: 'sk-bench-upstream',
    BENCH_UPSTREAM_API_KEY: 'sk-bench-upstream',
    PLAN_ENTERPRISE_RPM: '10000000',
    PLAN_ENTERPRISE_MONTHLY_TOKENS: '1000000000',
    ...settings,
  };
}

export async function benchServices(
  upstreamUrl: string,
  settings: Record<string, string | undefined>,
  overrides: Omit<ServiceOverrides, 'database'> = {},
): Promise<{ services: Services; accountId: string; databaseUrl: string | undefined }> {
  const env = parseEnv(benchSettings(upstreamUrl, settings));
  const database = await openTestDatabase();
  const services = createServices(env, { ...overrides, database });
  await database.migrate();
  const account = await createAccount({
    ctx: services.ctx,
    input: { email: 'bench@tessera.local', password: 'gateway timing passphrase 7', name: 'Bench' },
  });
  await setPlan({ ctx: services.ctx, accountId: account.id, input: { plan: 'enterprise' } });
  return { services, accountId: account.id, databaseUrl: database.url };
}

/** A new key of the bench account: `live` goes through the allowance and the upstream, `test` to the simulator. */
export async function benchKey(
  services: Services,
  accountId: string,
  kind: 'live' | 'test',
): Promise<string> {
  const key = await createKey({ ctx: services.ctx, accountId, input: { name: `bench ${kind}`, kind } });
  return key.key;
}
