import { sql } from 'drizzle-orm';
import postgres, { type Sql } from 'postgres';
import type { Db } from './types';

/**
 * The role split on PostgreSQL (docs/deployment.md, "Database roles"): the tables' owner applies the migrations
 * (MIGRATION_DATABASE_URL) and the server connects as a role that owns nothing (DATABASE_URL). The audit log's
 * triggers refuse UPDATE, DELETE and TRUNCATE, but an owner can disable its own table's triggers; a role that
 * owns nothing, has no UPDATE, DELETE or TRUNCATE on the log, and is neither a superuser nor a member of the
 * owner cannot, whatever SQL it runs.
 */

/** Tables the application may only add to and read. */
export const APPEND_ONLY_TABLES = ['audit_events'] as const;

/** A misconfiguration that no retry will cure: start-up stops at once with this message. */
export class DatabaseSetupError extends Error {
  override name = 'DatabaseSetupError';
}

/** The role a postgres:// URL connects as (env.ts requires one to be named when the roles are split). */
export function roleOf(url: string): string {
  return decodeURIComponent(new URL(url).username);
}

function passwordOf(url: string): string {
  return decodeURIComponent(new URL(url).password);
}

/**
 * Creates DATABASE_URL's role when it does not exist (LOGIN, no other attribute), and sets its password to the
 * URL's when the URL has one, so that the role is the one the server will log in as; run as the owner, with
 * CREATEROLE. Idempotent.
 */
export async function ensureAppRole(ownerUrl: string, appUrl: string): Promise<string> {
  const role = roleOf(appUrl);
  const owner = postgres(ownerUrl, { max: 1, onnotice: () => {} });
  try {
    const [existing] = await owner`select 1 from pg_roles where rolname = ${role}`;
    if (!existing) {
      // Role statements take no bind parameters: Postgres's own format() quotes the name and the password.
      const [create] = await owner<
        { q: string }[]
      >`select format('create role %I login', ${role}::text) as q`;
      await owner.unsafe(create?.q ?? '').catch((err: unknown) => {
        // Another run created it meanwhile.
        if (postgresError(err)?.code !== '42710') throw err;
      });
    }
    const password = passwordOf(appUrl);
    if (password) {
      const [alter] = await owner<{ q: string }[]>`
        select format('alter role %I password %L', ${role}::text, ${password}::text) as q`;
      await owner.unsafe(alter?.q ?? '');
    }
    return role;
  } finally {
    await owner.end({ timeout: 5 });
  }
}

/**
 * Gives `role` what the server needs: reads and writes on every table and sequence, the audit log's INSERT and
 * SELECT only, and reading the record of applied migrations (readiness). Also for tables later migrations
 * create (default privileges of the owner). Run by the owner after each migration, inside the migration lock:
 * concurrent GRANTs on one object fail with "tuple concurrently updated". Refuses a role that could rewrite
 * the log anyway.
 */
export async function grantAppRole(owner: Sql, role: string): Promise<void> {
  const [row] = await owner<{ rolsuper: boolean; ownsLog: boolean; logOwner: string }[]>`
    select r.rolsuper, pg_has_role(r.oid, c.relowner, 'MEMBER') as "ownsLog", pg_get_userbyid(c.relowner) as "logOwner"
    from pg_roles r, pg_class c
    where r.rolname = ${role} and c.oid = 'public.audit_events'::regclass`;
  if (!row)
    throw new DatabaseSetupError(
      `DATABASE_URL's role "${role}" does not exist: create it with \`pnpm cli database app-role\` (docs/deployment.md)`,
    );
  if (row.rolsuper || row.ownsLog)
    throw new DatabaseSetupError(
      `DATABASE_URL's role "${role}" ${row.rolsuper ? 'is a superuser' : `is (or is a member of) "${row.logOwner}", the tables' owner`}: it could rewrite the audit log; give the server a role of its own (docs/deployment.md)`,
    );
  const app = owner(role);
  const [{ database = '', version = 0 } = {}] = await owner<{ database: string; version: number }[]>`
    select current_database() as database, current_setting('server_version_num')::int as version`;
  await owner`grant connect on database ${owner(database)} to ${app}`;
  await owner`grant usage on schema public to ${app}`;
  await owner`grant select, insert, update, delete on all tables in schema public to ${app}`;
  await owner`grant usage, select, update on all sequences in schema public to ${app}`;
  await owner`alter default privileges in schema public grant select, insert, update, delete on tables to ${app}`;
  await owner`alter default privileges in schema public grant usage, select, update on sequences to ${app}`;
  // PostgreSQL 17's MAINTAIN lets the search's statistics refresh (VACUUM (ANALYZE)) run as the app; before 17
  // only the owner may, and the refresh is skipped with a warning (autovacuum does it).
  if (version >= 170_000) await owner`grant maintain on all tables in schema public to ${app}`;
  for (const table of APPEND_ONLY_TABLES) {
    await owner`revoke all on ${owner(table)} from ${app}`;
    await owner`grant select, insert on ${owner(table)} to ${app}`;
  }
  await owner`grant usage on schema drizzle to ${app}`;
  await owner`grant select on drizzle.__drizzle_migrations to ${app}`;
}

/**
 * Whether the connected role can get past the audit log's triggers: a superuser, or the table's owner (or a
 * member of it), may disable them. PostgreSQL only.
 */
export async function canRewriteAuditLog(db: Db): Promise<boolean> {
  const result = await db.execute<{ can: boolean }>(sql`
    select r.rolsuper or pg_has_role(r.oid, c.relowner, 'MEMBER') as can
    from pg_roles r, pg_class c
    where r.rolname = current_user and c.oid = 'public.audit_events'::regclass`);
  const rows = Array.isArray(result) ? result : (result as { rows: { can: boolean }[] }).rows;
  return rows[0]?.can ?? true;
}

/** What the connected role may do to the audit log: the CLI's answer to `database app-role`. */
export async function appRoleReport(
  db: Db,
): Promise<{ role: string; auditEvents: string[]; canRewriteAuditLog: boolean }> {
  const result = await db.execute<{ role: string; privileges: string[] }>(sql`
    select current_user as role,
      array(select p from unnest(array['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REFERENCES', 'TRIGGER']) p
            where has_table_privilege('public.audit_events', p)) as privileges`);
  const rows = Array.isArray(result)
    ? result
    : (result as { rows: { role: string; privileges: string[] }[] }).rows;
  return {
    role: rows[0]?.role ?? '',
    auditEvents: rows[0]?.privileges ?? [],
    canRewriteAuditLog: await canRewriteAuditLog(db),
  };
}

/** A Postgres error's SQLSTATE and message, also when drizzle wrapped it (its own message holds the query). */
export function postgresError(err: unknown): { code: string; message: string } | undefined {
  for (let e = err; e instanceof Error; e = e.cause) {
    if ('code' in e && typeof e.code === 'string') return { code: e.code, message: e.message };
  }
  return undefined;
}
