import { parseArgs } from 'node:util';
import { KeySettings, Plan, RotateKeyInput } from '@tessera/shared';
import { appRoleReport, ensureAppRole } from '../db/app-role';
import { parseEnv } from '../env';
import { resetDemo } from '../lifecycle';
import { createAccount, findAccount, setPlan, toAccountView } from '../modules/accounts';
import { OPERATOR_AUDIT } from '../modules/audit';
import { createKey, listKeys, revokeKey, rotateKey, updateKey } from '../modules/keys';
import { createServices, type Services } from '../services';

const USAGE = `Tessera operators' CLI: every command prints JSON.

  pnpm cli account create --email E --password P [--name N] [--plan free|pro|enterprise]
                          [--rpm N] [--monthly-tokens N]
  pnpm cli account show   --account ID_OR_EMAIL
  pnpm cli account plan   --account ID_OR_EMAIL --plan free|pro|enterprise [--rpm N|none] [--monthly-tokens N|none]
  pnpm cli key create     --account ID_OR_EMAIL --name N [--kind live|test] [KEY SETTINGS]
  pnpm cli key list       --account ID_OR_EMAIL
  pnpm cli key revoke     --account ID_OR_EMAIL --id KEY_ID
  pnpm cli key edit       --account ID_OR_EMAIL --id KEY_ID [--name N] [KEY SETTINGS]
  pnpm cli key rotate     --account ID_OR_EMAIL --id KEY_ID --grace SECONDS
  pnpm cli demo reset
      A new password and a new test key for the demo account (demo@tessera.local) that the first start made
      and printed once; its sessions end, its other keys keep working.
  pnpm cli database app-role
      PostgreSQL, as the tables' owner (MIGRATION_DATABASE_URL): creates DATABASE_URL's role if missing (with
      its password), applies the migrations and grants the role the server's rights; the audit log only
      INSERT and SELECT. Idempotent: run it at install and before each upgrade.

Key settings (on edit, 'none' removes a restriction):
  --scopes chat,models,code_analysis,search_read,search_write   endpoints the key may call (default: all)
  --models ID,ID        models the key may use (default: all)
  --expires ISO_TIME    e.g. 2027-01-31T12:00:00Z (default: never)
  --rpm N               the key's own requests per minute, within the plan's (default: the plan's only)
  --budget N/PERIOD     a live key's own token budget per day, week or month, e.g. 50000/day
  --cache-ttl SECONDS   answer identical chat requests from the response cache for this long (default: off)

Uses DATABASE_URL (or the embedded database in DATA_DIR, which only one process can open at a time:
stop the server first, or run against Postgres); with MIGRATION_DATABASE_URL, migrates as that role.`;

const OPTIONS = {
  email: { type: 'string' },
  password: { type: 'string' },
  name: { type: 'string' },
  plan: { type: 'string' },
  rpm: { type: 'string' },
  'cache-ttl': { type: 'string' },
  'monthly-tokens': { type: 'string' },
  account: { type: 'string' },
  kind: { type: 'string' },
  id: { type: 'string' },
  scopes: { type: 'string' },
  models: { type: 'string' },
  expires: { type: 'string' },
  budget: { type: 'string' },
  grace: { type: 'string' },
  help: { type: 'boolean' },
} as const;

type Flags = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

class UsageError extends Error {}

function required(flags: Flags, name: 'email' | 'password' | 'name' | 'plan' | 'account' | 'id'): string {
  const value = flags[name];
  if (!value) throw new UsageError(`--${name} is required`);
  return value;
}

/** A positive integer, `none` (clear to the plan default), or undefined when the flag is absent. */
function limit(value: string | undefined, flag: string): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === 'none') return null;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n <= 0)
    throw new UsageError(`--${flag} must be a positive integer or 'none'`);
  return n;
}

/** A comma-separated list, `none` (null), or undefined when the flag is absent. */
function list(value: string | undefined): string[] | null | undefined {
  if (value === undefined) return undefined;
  if (value === 'none') return null;
  return value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
}

/** `N/day|week|month`, `none` (null), or undefined when the flag is absent. */
function budget(value: string | undefined): { tokens: number; period: string } | null | undefined {
  if (value === undefined) return undefined;
  if (value === 'none') return null;
  const match = /^(\d+)\/(\w+)$/.exec(value);
  if (!match) throw new UsageError('--budget must read N/day, N/week or N/month (or none)');
  return { tokens: Number(match[1]), period: match[2] ?? '' };
}

/** The key settings given as flags; absent flags stay undefined (left as they are on an edit). */
function keySettings(flags: Flags): KeySettings {
  const parsed = KeySettings.safeParse({
    scopes: list(flags.scopes),
    models: list(flags.models),
    expiresAt: flags.expires === 'none' ? null : flags.expires,
    requestsPerMinute: limit(flags.rpm, 'rpm'),
    tokenBudget: budget(flags.budget),
    cacheTtlSeconds: limit(flags['cache-ttl'], 'cache-ttl'),
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = String(issue?.path[0] ?? '');
    const flag =
      (
        {
          expiresAt: 'expires',
          requestsPerMinute: 'rpm',
          tokenBudget: 'budget',
          cacheTtlSeconds: 'cache-ttl',
        } as Record<string, string>
      )[field] ?? field;
    throw new UsageError(`--${flag}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

function plan(value: string): Plan {
  const parsed = Plan.safeParse(value);
  if (!parsed.success) throw new UsageError(`--plan must be one of ${Plan.options.join(', ')}`);
  return parsed.data;
}

async function run(services: Services, [noun, verb]: string[], flags: Flags): Promise<unknown> {
  const ctx = services.ctx;
  const defaults = ctx.config.planDefaults;
  const accountOf = async () => findAccount({ ctx, idOrEmail: required(flags, 'account') });
  switch (`${noun} ${verb}`) {
    case 'account create': {
      const row = await createAccount({
        ctx,
        input: {
          email: required(flags, 'email'),
          password: required(flags, 'password'),
          ...(flags.name && { name: flags.name }),
          plan: flags.plan ? plan(flags.plan) : 'free',
          customRequestsPerMinute: limit(flags.rpm, 'rpm') ?? null,
          customMonthlyTokens: limit(flags['monthly-tokens'], 'monthly-tokens') ?? null,
        },
        audit: OPERATOR_AUDIT,
      });
      return toAccountView(row, defaults);
    }
    case 'account show':
      return toAccountView(await accountOf(), defaults);
    case 'account plan': {
      const input = {
        plan: plan(required(flags, 'plan')),
        customRequestsPerMinute: limit(flags.rpm, 'rpm'),
        customMonthlyTokens: limit(flags['monthly-tokens'], 'monthly-tokens'),
      };
      const row = await setPlan({ ctx, accountId: (await accountOf()).id, input, audit: OPERATOR_AUDIT });
      return toAccountView(row, defaults);
    }
    case 'key create': {
      const kind = flags.kind ?? 'test';
      if (kind !== 'live' && kind !== 'test') throw new UsageError('--kind must be live or test');
      const settings = keySettings(flags);
      const account = await accountOf();
      return createKey({
        ctx,
        accountId: account.id,
        input: { name: required(flags, 'name'), kind, ...settings },
        modelExists: (id) => services.catalogue.findAny(id) !== undefined,
        audit: OPERATOR_AUDIT,
      });
    }
    case 'key list':
      return listKeys({ ctx, accountId: (await accountOf()).id });
    case 'key edit': {
      const settings = keySettings(flags);
      return updateKey({
        ctx,
        accountId: (await accountOf()).id,
        input: {
          id: required(flags, 'id'),
          ...(flags.name !== undefined && { name: flags.name }),
          ...settings,
        },
        modelExists: (id) => services.catalogue.findAny(id) !== undefined,
        audit: OPERATOR_AUDIT,
      });
    }
    case 'key rotate': {
      const grace = Number(flags.grace ?? Number.NaN);
      if (!Number.isSafeInteger(grace) || grace < 0)
        throw new UsageError('--grace is required: the seconds the old key keeps working (0 to stop it now)');
      const input = RotateKeyInput.parse({ id: required(flags, 'id'), gracePeriodSeconds: grace });
      return rotateKey({ ctx, accountId: (await accountOf()).id, input, audit: OPERATOR_AUDIT });
    }
    case 'key revoke':
      return revokeKey({
        ctx,
        accountId: (await accountOf()).id,
        keyId: required(flags, 'id'),
        audit: OPERATOR_AUDIT,
      });
    case 'demo reset':
      return resetDemo(services);
    case 'database app-role':
      // Read back through the server's own connection: the role logs in, and this is what it may do.
      return appRoleReport(ctx.db);
    default:
      throw new UsageError(`unknown command: ${[noun, verb].filter(Boolean).join(' ') || '(none)'}`);
  }
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({ options: OPTIONS, allowPositionals: true, strict: true });
  if (values.help || positionals.length === 0) {
    process.stdout.write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  const env = parseEnv(undefined, { LOG_LEVEL: 'warn' });
  const services = createServices(env);
  try {
    // The role must exist before the migration grants it anything.
    if (positionals.join(' ') === 'database app-role') {
      if (!env.DATABASE_URL || !env.MIGRATION_DATABASE_URL)
        throw new UsageError(
          'database app-role needs DATABASE_URL (the server’s role) and MIGRATION_DATABASE_URL (the tables’ owner)',
        );
      await ensureAppRole(env.MIGRATION_DATABASE_URL, env.DATABASE_URL);
    }
    await services.database.migrate();
    const result = await run(services, positionals, values);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (err) {
    const message = (err as Error).message;
    process.stderr.write(`${JSON.stringify({ error: message })}\n`);
    if (err instanceof UsageError) process.stderr.write(`\n${USAGE}\n`);
    return 1;
  } finally {
    await services.database.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${JSON.stringify({ error: (err as Error).message })}\n`);
    process.exit(1);
  },
);
