import type { SetWebhookInput } from '@tessera/shared';
import { desc, eq, sql } from 'drizzle-orm';
import type { Ctx } from '../../context';
import { webhookDeliveries, webhookEndpoints } from '../../db/schema';
import { ServiceError } from '../../errors';
import { randomBase62 } from '../../lib/ids';
import { type AuditContext, recordAudit } from '../audit';
import { literalAddressRefusal } from './addresses';
import type { SecretBox } from './secret-box';

export interface WebhookView {
  url: string;
  /** The secret's last 4 characters; the whole secret is shown once, when it is made. */
  secretLast4: string;
  updatedAt: string;
}

/**
 * Sets the organisation's webhook URL with a new signing secret (`whsec_` and 32 base62 characters, about 190
 * bits), returned once here and never again; deliveries already queued go to the new URL's row, signed with the
 * new secret.
 */
export async function setWebhook({
  ctx,
  box,
  accountId,
  input,
  audit,
}: {
  ctx: Ctx;
  box: SecretBox;
  accountId: string;
  input: SetWebhookInput;
  audit?: AuditContext;
}): Promise<WebhookView & { secret: string }> {
  const refused = ctx.config.webhooks.allowPrivate ? undefined : literalAddressRefusal(input.url);
  if (refused) throw new ServiceError('invalid_request', refused, { param: 'url', code: 'invalid_value' });
  const secret = `whsec_${randomBase62(32)}`;
  const values = { url: input.url, secret: box.seal(secret), secretLast4: secret.slice(-4) };
  const row = await ctx.db.transaction(async (tx) => {
    const [saved] = await tx
      .insert(webhookEndpoints)
      .values({ accountId, ...values })
      .onConflictDoUpdate({ target: webhookEndpoints.accountId, set: { ...values, updatedAt: sql`now()` } })
      .returning();
    // Pending deliveries follow the endpoint to its new URL.
    await tx
      .update(webhookDeliveries)
      .set({ url: input.url })
      .where(sql`${webhookDeliveries.accountId} = ${accountId} and ${webhookDeliveries.status} = 'pending'`);
    if (audit)
      await recordAudit(tx, audit, {
        accountId,
        action: 'webhook.set',
        target: { type: 'webhook', id: accountId },
        details: { url: input.url },
      });
    return saved;
  });
  if (!row) throw new Error('webhook upsert returned no row');
  return { url: row.url, secretLast4: row.secretLast4, updatedAt: row.updatedAt.toISOString(), secret };
}

export async function removeWebhook({
  ctx,
  accountId,
  audit,
}: {
  ctx: Ctx;
  accountId: string;
  audit?: AuditContext;
}): Promise<boolean> {
  return ctx.db.transaction(async (tx) => {
    const gone = await tx
      .delete(webhookEndpoints)
      .where(eq(webhookEndpoints.accountId, accountId))
      .returning({ id: webhookEndpoints.accountId });
    if (gone.length > 0 && audit)
      await recordAudit(tx, audit, {
        accountId,
        action: 'webhook.removed',
        target: { type: 'webhook', id: accountId },
      });
    return gone.length > 0;
  });
}

export async function getWebhook({
  ctx,
  accountId,
}: {
  ctx: Pick<Ctx, 'db'>;
  accountId: string;
}): Promise<WebhookView | null> {
  const [row] = await ctx.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.accountId, accountId));
  return row ? { url: row.url, secretLast4: row.secretLast4, updatedAt: row.updatedAt.toISOString() } : null;
}

/** The delivery log: the account's deliveries, newest first. */
export async function listDeliveries({
  ctx,
  accountId,
  limit = 50,
}: {
  ctx: Pick<Ctx, 'db'>;
  accountId: string;
  limit?: number;
}) {
  return ctx.db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.accountId, accountId))
    .orderBy(desc(webhookDeliveries.createdAt))
    .limit(Math.min(Math.max(1, limit), 200));
}
