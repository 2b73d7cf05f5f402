import { count, eq } from 'drizzle-orm';
import pRetry from 'p-retry';
import { canRewriteAuditLog, DatabaseSetupError } from './db/app-role';
import { accounts, sessions, users } from './db/schema';
import { ServiceError } from './errors';
import { randomBase62 } from './lib/ids';
import type { Logger } from './logger';
import { createAccount, hashPassword } from './modules/accounts';
import { OPERATOR_AUDIT } from './modules/audit';
import { seedSampleTraffic } from './modules/demo';
import { createKey } from './modules/keys';
import type { Services } from './services';

/** Applies migrations, waiting for the database with a clear log line per attempt rather than crashing. */
export async function migrateWithRetry(services: Services, attempts = 30, delayMs = 2_000): Promise<void> {
  const { logger } = services.ctx;
  await pRetry(() => services.database.migrate(), {
    retries: attempts - 1,
    minTimeout: delayMs,
    factor: 1,
    shouldRetry: ({ error }) => !(error instanceof DatabaseSetupError),
    onFailedAttempt: ({ error, attemptNumber, retriesLeft }) => {
      if (retriesLeft > 0)
        logger.warn(
          { attempt: attemptNumber, of: attempts, err: error.message },
          `database not ready; retrying in ${delayMs} ms`,
        );
    },
  });
  logger.info({ database: services.database.kind }, 'migrations applied');
  if (services.database.kind === 'postgres' && (await canRewriteAuditLog(services.ctx.db).catch(() => false)))
    logger.warn(
      'the server’s database role owns audit_events (or is a superuser): it can disable the append-only ' +
        'triggers; give it a role of its own with MIGRATION_DATABASE_URL (docs/deployment.md, "Database roles")',
    );
  // Collections written before compressed postings get theirs in the background once the server listens
  // (services.searchMaintenance): their searches are exact meanwhile, and readiness does not wait for it.
}

export const DEMO_EMAIL = 'demo@tessera.local';

export interface DemoAccount {
  email: string;
  password: string;
  key: string;
  /** Requests of sample traffic metered for the dashboard (removable there). */
  sampleEvents: number;
}

/** On a brand-new embedded database: a demo account and a test key, so that a newcomer can curl at once. */
export async function seedDemoIfEmpty(services: Services): Promise<DemoAccount | null> {
  const [row] = await services.ctx.db.select({ n: count() }).from(accounts);
  if ((row?.n ?? 0) > 0) return null;
  const email = DEMO_EMAIL;
  // Random only: the password rules refuse one built on the account's own email (`demo-…` for demo@…).
  const password = randomBase62(20);
  const account = await createAccount({ ctx: services.ctx, input: { email, password, name: 'Demo' } });
  const key = await createKey({
    ctx: services.ctx,
    accountId: account.id,
    input: { name: 'Demo test key', kind: 'test' },
  });
  const sampleEvents = await seedSampleTraffic({
    ctx: services.ctx,
    usage: services.usage,
    prices: services.catalogue.prices,
    accountId: account.id,
  });
  return { email, password, key: key.key, sampleEvents };
}

export function printDemo(demo: DemoAccount, url: string, logger: Logger): void {
  logger.info({ email: demo.email }, 'created demo account');
  // Printed to stdout once, on the first start only: the newcomer's way in.
  process.stdout.write(
    [
      '',
      '  A demo account was created (shown once; keep it):',
      `    dashboard  ${url}`,
      `    email      ${demo.email}`,
      `    password   ${demo.password}`,
      `    test key   ${demo.key}`,
      '',
      `  Its dashboard shows ${demo.sampleEvents.toLocaleString('en')} requests of sample traffic over two weeks, labelled as`,
      '  such; one click on the overview removes it.',
      '',
      '  Try it:',
      `    curl ${url}/v1/chat/completions -H "Authorization: Bearer ${demo.key}" \\`,
      `      -H "Content-Type: application/json" \\`,
      `      -d '{"model":"tessera-fast-4k","messages":[{"role":"user","content":"Hello!"}]}'`,
      '',
    ].join('\n'),
  );
}

/** Whether this database holds the demo account (made on the first start of an empty one). */
export async function hasDemoAccount(services: Services): Promise<boolean> {
  const [row] = await services.ctx.db.select({ id: users.id }).from(users).where(eq(users.email, DEMO_EMAIL));
  return row !== undefined;
}

/** On a later start: the credentials were printed once, so say how to get in again. */
export function printDemoHint(url: string): void {
  process.stdout.write(
    [
      '',
      `  Sign in at ${url} as ${DEMO_EMAIL} with the password printed on the first start.`,
      '  Lost it? Stop the server and run `npx -y pnpm@10 cli demo reset` for a new password and test key.',
      '',
    ].join('\n'),
  );
}

/**
 * `pnpm cli demo reset`: a new random password for the demo user (its sessions end) and a new test key, for
 * whoever lost what the first start printed. The old keys keep working.
 */
export async function resetDemo(services: Services): Promise<Omit<DemoAccount, 'sampleEvents'>> {
  const { db } = services.ctx;
  const [user] = await db.select({ id: users.id }).from(users).where(eq(users.email, DEMO_EMAIL));
  const [account] = await db.select({ id: accounts.id }).from(accounts).where(eq(accounts.email, DEMO_EMAIL));
  if (!user || !account) {
    throw new ServiceError(
      'not_found',
      `No demo account (${DEMO_EMAIL}) in this database: it is made on the first start of an empty one.`,
    );
  }
  const password = randomBase62(20);
  const passwordHash = await hashPassword(password);
  await db.transaction(async (tx) => {
    await tx.update(users).set({ passwordHash }).where(eq(users.id, user.id));
    await tx.delete(sessions).where(eq(sessions.userId, user.id));
  });
  const key = await createKey({
    ctx: services.ctx,
    accountId: account.id,
    input: { name: 'Demo test key (reset)', kind: 'test' },
    audit: OPERATOR_AUDIT,
  });
  return { email: DEMO_EMAIL, password, key: key.key };
}
