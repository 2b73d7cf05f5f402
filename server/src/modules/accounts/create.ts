import { type Plan, SignUpInput } from '@tessera/shared';
import type { Ctx } from '../../context';
import { type AccountRow, accounts } from '../../db/schema';
import { ServiceError } from '../../errors';
import { newId } from '../../lib/ids';
import { type AuditActor, type AuditRequest, recordAudit, sessionActor } from '../audit';
import { COMMON_PASSWORD_MESSAGE, isCommonPassword } from './common-passwords';
import { hashPassword } from './password';

export interface CreateAccountInput extends SignUpInput {
  plan?: Plan;
  customRequestsPerMinute?: number | null;
  customMonthlyTokens?: number | null;
}

/**
 * Sign-up (dashboard, after its throttle: sign-up.ts) and account creation (operators' CLI) both come here.
 * A taken email is found by the insert's conflict, after the password is hashed.
 */
export async function createAccount({
  ctx,
  input,
  audit,
}: {
  ctx: Pick<Ctx, 'db'>;
  input: CreateAccountInput;
  /**
   * An `account.created` event in the insert's transaction; its actor is the given one (an operator), or else
   * the new account's own user (a sign-up).
   */
  audit?: AuditRequest & { actor?: AuditActor };
}): Promise<AccountRow> {
  const { email, password, name } = SignUpInput.parse(input);
  if (isCommonPassword(password)) {
    throw new ServiceError('invalid_request', COMMON_PASSWORD_MESSAGE, {
      param: 'password',
      code: 'common_password',
    });
  }
  // Hashed before the email is looked at: a taken email costs the same scrypt as a new one (and as a
  // sign-in), so the answer's timing does not tell which emails have accounts.
  const passwordHash = await hashPassword(password);
  const row = await ctx.db.transaction(async (tx) => {
    const [inserted] = await tx
      .insert(accounts)
      .values({
        id: newId('acc'),
        email,
        name: name ?? null,
        passwordHash,
        plan: input.plan ?? 'free',
        customRequestsPerMinute: input.customRequestsPerMinute ?? null,
        customMonthlyTokens: input.customMonthlyTokens ?? null,
      })
      .onConflictDoNothing({ target: accounts.email })
      .returning();
    if (inserted && audit)
      await recordAudit(
        tx,
        { actor: audit.actor ?? sessionActor(inserted), ip: audit.ip, userAgent: audit.userAgent },
        {
          accountId: inserted.id,
          action: 'account.created',
          target: { type: 'account', id: inserted.id },
          details: {
            email: inserted.email,
            plan: inserted.plan,
            customRequestsPerMinute: inserted.customRequestsPerMinute,
            customMonthlyTokens: inserted.customMonthlyTokens,
          },
        },
      );
    return inserted;
  });
  if (!row) {
    throw new ServiceError('conflict', 'An account with this email already exists.', {
      param: 'email',
      code: 'email_taken',
    });
  }
  return row;
}
