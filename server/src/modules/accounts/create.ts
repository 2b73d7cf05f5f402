import { type Plan, SignUpInput } from '@tessera/shared';
import type { Ctx } from '../../context';
import { type AccountRow, accounts, memberships, type UserRow, users } from '../../db/schema';
import { ServiceError } from '../../errors';
import { newId } from '../../lib/ids';
import { type AuditActor, type AuditRequest, recordAudit, sessionActor } from '../audit';
import { hashPassword } from './password';
import { passwordRefusal } from './password-policy';

export interface CreateAccountInput extends SignUpInput {
  plan?: Plan;
  customRequestsPerMinute?: number | null;
  customMonthlyTokens?: number | null;
}

type Tx = Parameters<Parameters<Ctx['db']['transaction']>[0]>[0];

function emailTaken(): ServiceError {
  return new ServiceError('conflict', 'An account with this email already exists.', {
    param: 'email',
    code: 'email_taken',
  });
}

/** The checks and the hash every new user goes through (sign-up, sign-up by invitation, the CLI). */
async function newUserValues(
  input: SignUpInput,
): Promise<{ email: string; name: string | null; passwordHash: string }> {
  const { email, password, name } = SignUpInput.parse(input);
  const refusal = passwordRefusal(password, { email, name });
  if (refusal)
    throw new ServiceError('invalid_request', refusal.message, { param: 'password', code: refusal.code });
  // Hashed before the email is looked at: a taken email costs the same scrypt as a new one (and as a
  // sign-in), so the answer's timing does not tell which emails have accounts.
  return { email, name: name ?? null, passwordHash: await hashPassword(password) };
}

/** Inserts a user; a taken email is found by the insert's conflict (after the hash: see newUserValues). */
export async function insertUser(
  db: Tx | Ctx['db'],
  values: Awaited<ReturnType<typeof newUserValues>>,
): Promise<UserRow> {
  const [row] = await db
    .insert(users)
    .values({ id: newId('usr'), ...values })
    .onConflictDoNothing({ target: users.email })
    .returning();
  if (!row) throw emailTaken();
  return row;
}

/** A user without an organisation: sign-up through an invitation, which then adds the membership. */
export async function prepareUser(input: SignUpInput) {
  return newUserValues(input);
}

/**
 * Sign-up (dashboard, after its throttle: sign-up.ts) and account creation (operators' CLI) both come here:
 * a user, an organisation of one (the `accounts` row) and the user's owner membership, in one transaction.
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
   * the new organisation's owner (a sign-up).
   */
  audit?: AuditRequest & { actor?: AuditActor };
}): Promise<AccountRow & { ownerUserId: string }> {
  const values = await newUserValues(input);
  return ctx.db.transaction(async (tx) => {
    const user = await insertUser(tx, values);
    const [row] = await tx
      .insert(accounts)
      .values({
        id: newId('acc'),
        email: values.email,
        name: values.name,
        plan: input.plan ?? 'free',
        customRequestsPerMinute: input.customRequestsPerMinute ?? null,
        customMonthlyTokens: input.customMonthlyTokens ?? null,
      })
      .onConflictDoNothing({ target: accounts.email })
      .returning();
    if (!row) throw emailTaken();
    await tx.insert(memberships).values({ accountId: row.id, userId: user.id, role: 'owner' });
    if (audit)
      await recordAudit(
        tx,
        { actor: audit.actor ?? sessionActor(user), ip: audit.ip, userAgent: audit.userAgent },
        {
          accountId: row.id,
          action: 'account.created',
          target: { type: 'account', id: row.id },
          details: {
            email: row.email,
            plan: row.plan,
            customRequestsPerMinute: row.customRequestsPerMinute,
            customMonthlyTokens: row.customMonthlyTokens,
          },
        },
      );
    return { ...row, ownerUserId: user.id };
  });
}
