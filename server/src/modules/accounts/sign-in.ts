import { SignInInput } from '@tessera/shared';
import { eq } from 'drizzle-orm';
import type { Ctx } from '../../context';
import { memberships, type UserRow, users } from '../../db/schema';
import { ServiceError } from '../../errors';
import { type AuditRequest, recordAudit } from '../audit';
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
 * instance shares (modules/auth-throttle). The email's count comes after the user is read: an attempt that
 * fails before its password is checked (the database down or stalled: 503) is not a wrong password.
 */
export async function signIn({
  ctx,
  input,
  address,
  throttle,
  request,
}: {
  ctx: Pick<Ctx, 'db'>;
  input: SignInInput;
  address: string;
  throttle: AuthThrottle;
  /** Where the attempt came from: a wrong password for an existing user is written to their organisations' logs. */
  request?: AuditRequest;
}): Promise<UserRow> {
  const { email, password } = SignInInput.parse(input);
  const byAddress = await throttle.signInFromAddress(address);
  if (!byAddress.allowed) throw tooManyAttempts(byAddress, 'sign-in attempts');
  const [row] = await ctx.db.select().from(users).where(eq(users.email, email)).limit(1);
  const byEmail = await throttle.signInForEmail(email);
  if (!byEmail.allowed) throw tooManyAttempts(byEmail, 'sign-in attempts');
  const ok = await verifyPassword(password, row?.passwordHash ?? (await dummyPasswordHash()));
  if (!row || !ok) {
    // Only for an existing user (an unknown email has no log to write to), and bounded: the throttle above
    // refuses attempts before this point, so a flood of wrong passwords writes a few events, not a flood.
    // The actor is whoever typed the password: not a user we know, so no user id; the email tried is the user's.
    if (row && request) await recordFailedSignIn(ctx, row, request);
    throw new ServiceError('authentication', 'Incorrect email or password.', { code: 'invalid_credentials' });
  }
  await throttle.signInSucceeded(email);
  return row;
}

/** `auth.sign_in_failed` in every organisation the user belongs to: each one's owners see attempts on a member. */
async function recordFailedSignIn(ctx: Pick<Ctx, 'db'>, user: UserRow, request: AuditRequest): Promise<void> {
  const organisations = await ctx.db
    .select({ accountId: memberships.accountId })
    .from(memberships)
    .where(eq(memberships.userId, user.id));
  for (const { accountId } of organisations)
    await recordAudit(
      ctx.db,
      { actor: { kind: 'user', userId: null, email: user.email }, ...request },
      {
        accountId,
        action: 'auth.sign_in_failed',
        target: { type: 'user', id: user.id },
        details: { reason: 'wrong_password' },
      },
    );
}
