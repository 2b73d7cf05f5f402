/**
 * Tessera set up for the gateway benchmarks: four models (`bench-model`, `bench-routed` served by two
 * deployments of the same upstream, `bench-full`, routed and priced, and `bench-long` with a context of 1M
 * tokens) routed to a fake OpenAI upstream, an enterprise account with room for any load, on a fresh Postgres
 * database when TEST_DATABASE_URL is set (dropped at exit), else embedded PGlite. Used by tessera.ts (the
 * benchmark's server), tessera-cluster.ts and maps.ts; `budgetedKey` makes the account and key that
 * `--features` measures.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEnv } from '../../server/src/env';
import { createAccount, setPlan } from '../../server/src/modules/accounts';
import { setSpendBudget } from '../../server/src/modules/budgets';
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
          // Issue 40's gateway with its features on (run.ts --features, routing.ts): routed as `bench-routed`,
          // and priced, so every call is costed and, for a budgeted key, held to its budgets.
          id: 'bench-full',
          provider: 'openai',
          upstream_model: 'ok',
          context_window: 8192,
          max_output_tokens: 512,
          description: 'fake upstream, two deployments, priced',
          created: 1767225600,
          deployments: ['bench-c', 'bench-d'].map((name) => ({
            name,
            base_url: `${upstreamUrl}/v1`,
            api_key_env: 'BENCH_UPSTREAM_API_KEY',
          })),
          routing: { strategy: 'weighted' },
          pricing: [{ from: '2026-01-01', input: 2.5, output: 10 }],
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

/**
 * A live key held to money budgets, in an account of its own (an organisation's budget binds every key of it):
 * the organisation's monthly budget and the key's daily one, each far above what a benchmark spends, so every
 * call of the key reserves and settles its cost against two budgets and none refuses.
 */
export async function budgetedKey(services: Services): Promise<string> {
  const account = await createAccount({
    ctx: services.ctx,
    input: {
      email: 'bench-budgets@tessera.local',
      password: 'gateway timing passphrase 8',
      name: 'Bench budgets',
    },
  });
  await setPlan({ ctx: services.ctx, accountId: account.id, input: { plan: 'enterprise' } });
  const created = await createKey({
    ctx: services.ctx,
    accountId: account.id,
    input: { name: 'bench budgeted', kind: 'live' },
  });
  const amountMicros = 10 ** 14;
  await setSpendBudget({
    ctx: services.ctx,
    accountId: account.id,
    input: { scope: 'account', budget: { amountMicros, period: 'month' } },
  });
  await setSpendBudget({
    ctx: services.ctx,
    accountId: account.id,
    input: { scope: 'key', subjectId: created.id, budget: { amountMicros, period: 'day' } },
  });
  return created.key;
}
