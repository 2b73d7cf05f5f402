import { type Plan, SignUpInput } from '@tessera/shared';
import { eq } from 'drizzle-orm';
import type { Ctx } from '../../context';
import { type AccountRow, accounts } from '../../db/schema';
import { ServiceError } from '../../errors';
import { newId } from '../../lib/ids';
import { hashPassword } from './password';

export interface CreateAccountInput extends SignUpInput {
  plan?: Plan;
  customRequestsPerMinute?: number | null;
  customMonthlyTokens?: number | null;
}

/** Sign-up (dashboard) and account creation (operators' CLI) both come here. */
export async function createAccount({
  ctx,
  input,
}: {
  ctx: Pick<Ctx, 'db'>;
  input: CreateAccountInput;
}): Promise<AccountRow> {
  const { email, password, name } = SignUpInput.parse(input);
  const existing = await ctx.db.select({ id: accounts.id }).from(accounts).where(eq(accounts.email, email));
  if (existing.length > 0) {
    throw new ServiceError('conflict', 'An account with this email already exists.', {
      param: 'email',
      code: 'email_taken',
    });
  }
  const [row] = await ctx.db
    .insert(accounts)
    .values({
      id: newId('acc'),
      email,
      name: name ?? null,
      passwordHash: await hashPassword(password),
      plan: input.plan ?? 'free',
      customRequestsPerMinute: input.customRequestsPerMinute ?? null,
      customMonthlyTokens: input.customMonthlyTokens ?? null,
    })
    .onConflictDoNothing({ target: accounts.email })
    .returning();
  if (!row) {
    throw new ServiceError('conflict', 'An account with this email already exists.', {
      param: 'email',
      code: 'email_taken',
    });
  }
  return row;
}
