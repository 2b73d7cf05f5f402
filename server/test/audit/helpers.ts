import type { AuditEventView, AuditPage } from '@tessera/shared';
import { eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { auditEvents } from '../../src/db/schema';
import type { TestServer } from '../helpers/server';
import { type TrpcResult, TrpcTestClient } from '../helpers/trpc-client';

export const PASSWORD = 'a long enough password';
export const UA = 'audit-test-agent/1.0';

/**
 * A new account signed up through the dashboard's tRPC (with a user agent of its own): its client, email, the
 * organisation's id and its owner's user id.
 */
export async function signedUp(server: TestServer, prefix = 'audit') {
  const web = new TrpcTestClient(server.url);
  const email = `${prefix}-${Math.random().toString(36).slice(2)}@example.com`;
  const res = await web.mutation<{ id: string; userId: string }>(
    'auth.signUp',
    { email, password: PASSWORD },
    { 'user-agent': UA },
  );
  expect(res.status).toBe(200);
  const id = res.data?.id;
  const userId = res.data?.userId;
  if (!id || !userId) throw new Error('no account');
  return { web, email, id, userId };
}

/** Every page of the log through tRPC, newest first. */
export async function auditLog(
  web: TrpcTestClient,
  filter: Record<string, unknown> = {},
): Promise<AuditEventView[]> {
  const out: AuditEventView[] = [];
  let after: string | null = null;
  for (;;) {
    const res: TrpcResult<AuditPage> = await web.query<AuditPage>('audit.list', {
      first: 100,
      ...filter,
      ...(after && { after }),
    });
    expect(res.error).toBeUndefined();
    const page: AuditPage | undefined = res.data;
    if (!page) throw new Error('no page');
    out.push(...page.events);
    if (!page.pageInfo.hasNextPage) return out;
    after = page.pageInfo.endCursor;
  }
}

/** The raw rows, as stored (every column), to check that no secret reached the table at all. */
export async function rawRows(server: TestServer, accountId: string): Promise<string> {
  const rows = await server.services.ctx.db
    .select()
    .from(auditEvents)
    .where(eq(auditEvents.accountId, accountId));
  return JSON.stringify(rows);
}
