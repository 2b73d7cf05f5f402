import { SignInInput } from '@tessera/shared';
import { eq } from 'drizzle-orm';
import type { Ctx } from '../../context';
import { type UserRow, users } from '../../db/schema';
import { ServiceError } from '../../errors';
import type { AttemptDecision, AuthThrottle } from '../auth-throttle';
import { dummyPasswordHash, verifyPassword } from './password';

/** The 429 of a throttled attempt, with the wait in its message and `retry-after`. */
export function tooManyAttempts(decision: AttemptDecision, what: string): ServiceError {
  const seconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
  return new ServiceError('rate_limited', `Too many ${what}. Try again in ${seconds}s.`, {
    code: 'too_many_attempts',
    retryAfterMs: seconds * 1000,
  });
}

/**
 * Checks a user's email and password. Before any hashing, the attempt is counted against the client address
 * (a window) and the email (a backoff that grows with each failure; a success clears it), on counters every
 * instance shares (modules/auth-throttle).
 */
export async function signIn({
  ctx,
  input,
  address,
  throttle,
}: {
  ctx: Pick<Ctx, 'db'>;
  input: SignInInput;
  address: string;
  throttle: AuthThrottle;
}): Promise<UserRow> {
  const { email, password } = SignInInput.parse(input);
  const decision = await throttle.signInAttempt(email, address);
  if (!decision.allowed) throw tooManyAttempts(decision, 'sign-in attempts');
  const [row] = await ctx.db.select().from(users).where(eq(users.email, email)).limit(1);
  const ok = await verifyPassword(password, row?.passwordHash ?? (await dummyPasswordHash()));
  if (!row || !ok) {
    throw new ServiceError('authentication', 'Incorrect email or password.', { code: 'invalid_credentials' });
  }
  await throttle.signInSucceeded(email);
  return row;
}
