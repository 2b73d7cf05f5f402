import { SignInInput } from '@tessera/shared';
import { eq } from 'drizzle-orm';
import type { Ctx } from '../../context';
import { type AccountRow, accounts } from '../../db/schema';
import { ServiceError } from '../../errors';
import { dummyPasswordHash, verifyPassword } from './password';
import type { AttemptThrottle } from './throttle';

export interface SignInThrottles {
  byEmail: AttemptThrottle;
  byAddress: AttemptThrottle;
}

/** Checks email and password; throttled per email and per client address before any hashing. */
export async function signIn({
  ctx,
  input,
  address,
  throttles,
}: {
  ctx: Pick<Ctx, 'db'>;
  input: SignInInput;
  address: string;
  throttles: SignInThrottles;
}): Promise<AccountRow> {
  const { email, password } = SignInInput.parse(input);
  const wait = Math.max(throttles.byEmail.retryAfterMs(email), throttles.byAddress.retryAfterMs(address));
  if (wait > 0) {
    const seconds = Math.ceil(wait / 1000);
    throw new ServiceError('rate_limited', `Too many sign-in attempts. Try again in ${seconds}s.`, {
      code: 'too_many_attempts',
      headers: { 'retry-after': String(seconds) },
    });
  }
  throttles.byAddress.record(address);
  const [row] = await ctx.db.select().from(accounts).where(eq(accounts.email, email)).limit(1);
  const ok = await verifyPassword(password, row?.passwordHash ?? (await dummyPasswordHash()));
  if (!row || !ok) {
    throttles.byEmail.record(email);
    throw new ServiceError('authentication', 'Incorrect email or password.', { code: 'invalid_credentials' });
  }
  throttles.byEmail.reset(email);
  return row;
}
