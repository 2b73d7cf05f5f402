import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { newId } from '../../lib/ids';

/**
 * Queues an event for the organisation's webhook, in the caller's transaction (so the event and its delivery
 * commit together); nothing when the organisation has no webhook. The body is fixed now: every attempt sends
 * the same bytes, signed afresh.
 */
export async function enqueueDelivery(
  tx: Db,
  input: { accountId: string; eventType: string; payload: Record<string, unknown> },
): Promise<void> {
  await tx.execute(sql`
    insert into webhook_deliveries (id, account_id, event_type, payload, url)
    select ${newId('whd')}, account_id, ${input.eventType}, ${JSON.stringify(input.payload)}, url
    from webhook_endpoints where account_id = ${input.accountId}`);
}
