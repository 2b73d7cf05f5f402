import type { SignUpInput } from '@tessera/shared';
import type { Ctx } from '../../context';
import type { AuditRequest } from '../audit';
import type { AuthThrottle } from '../auth-throttle';
import { createAccount } from './create';
import { tooManyAttempts } from './sign-in';

/**
 * The dashboard's sign-up: counted against the client address on counters every instance shares, then
 * `createAccount` (guessable passwords refused, the password hashed whether or not the email is taken).
 * A sign-up through an invitation does not come here: modules/teams `signUpByInvitation` (after the same
 * `checkSignUpAttempt`) creates the user and that membership only.
 */
export async function signUp({
  ctx,
  input,
  address,
  throttle,
  request,
}: {
  ctx: Pick<Ctx, 'db'>;
  input: SignUpInput;
  address: string;
  throttle: AuthThrottle;
  /** Where it came from: `account.created` is written, by the new owner, with the organisation. */
  request?: AuditRequest;
}) {
  await checkSignUpAttempt(address, throttle);
  return createAccount({ ctx, input, ...(request && { audit: request }) });
}

export async function checkSignUpAttempt(address: string, throttle: AuthThrottle): Promise<void> {
  const decision = await throttle.signUpAttempt(address);
  if (!decision.allowed) throw tooManyAttempts(decision, 'sign-ups from this address');
}
