import type { Logger } from '../../logger';
import type { Principal } from '../../principal';
import type { SpendReserver } from '../budgets/types';
import type { TokenAllowance } from './types';

/** How a reserved call ended, and what it consumed however it ended. */
export type ReservedOutcome<T, U> =
  | { ok: true; value: T; usage: U }
  | { ok: false; error: unknown; usage: U };

/**
 * Runs a model call between a reservation and its settlement, the way every metered endpoint does it (chat,
 * embeddings): a live key reserves the worst case (`tokens`) before the call, and settles to what `measure`
 * says it consumed after it, whether it finished, failed, timed out or was aborted. Test keys never touch the
 * allowance. A refusal before the call (429 `insufficient_quota`, 503 in an outage) is thrown: nothing was used.
 * A failed settlement is logged, not thrown: the answer is already the client's.
 *
 * Money budgets (`call.spend`, modules/budgets) go first, the same way: the call's worst-case cost (`maxMicros`,
 * null for an unpriced model) is held before the tokens, given back when the token allowance refuses, and
 * settled to `measure`'s `costMicros` (what the call really consumed, an aborted stream's part included).
 */
export async function withReservation<T, U>(
  deps: { logger: Logger },
  call: {
    principal: Principal;
    allowance: TokenAllowance;
    spend?: { reserver: SpendReserver; maxMicros: number | null } | undefined;
  },
  tokens: number,
  run: () => Promise<T>,
  measure: () => Promise<{ usage: U; tokens: number; costMicros?: number | null }>,
): Promise<ReservedOutcome<T, U>> {
  const { principal } = call;
  const hold = call.spend && (await call.spend.reserver.reserve(principal, call.spend.maxMicros));
  let reservation: Awaited<ReturnType<TokenAllowance['reserve']>> | undefined;
  try {
    reservation = principal.mode === 'live' ? await call.allowance.reserve(principal, tokens) : undefined;
  } catch (error) {
    await hold?.settle(0);
    throw error;
  }
  let ended: { ok: true; value: T } | { ok: false; error: unknown };
  try {
    ended = { ok: true, value: await run() };
  } catch (error) {
    ended = { ok: false, error };
  }
  const measured = await measure();
  const settled = reservation?.settle(measured.tokens).catch((err: unknown) => {
    deps.logger.error({ err, keyId: principal.keyId }, 'settling a token reservation failed');
  });
  // Both settle together; a call that holds only one waits for that one, with no Promise.all made for it.
  if (hold) await Promise.all([settled, hold.settle(measured.costMicros ?? 0)]);
  else await settled;
  return ended.ok
    ? { ok: true, value: ended.value, usage: measured.usage }
    : { ok: false, error: ended.error, usage: measured.usage };
}
