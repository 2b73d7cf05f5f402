import type { OrganisationView } from '@tessera/shared';
import { asc, eq } from 'drizzle-orm';
import type { Ctx } from '../../context';
import { type AccountRow, accounts, memberships } from '../../db/schema';
import { ServiceError } from '../../errors';
import { setSessionOrganisation } from '../accounts';

/** How an organisation is named in the switcher: its name, else its contact email. */
export function organisationName(account: Pick<AccountRow, 'name' | 'email'>): string {
  return account.name ?? account.email;
}

/** The user's organisations and roles, oldest membership first: the switcher's list. */
export async function listOrganisations({
  ctx,
  userId,
}: {
  ctx: Pick<Ctx, 'db'>;
  userId: string;
}): Promise<OrganisationView[]> {
  const rows = await ctx.db
    .select({ id: accounts.id, name: accounts.name, email: accounts.email, role: memberships.role })
    .from(memberships)
    .innerJoin(accounts, eq(accounts.id, memberships.accountId))
    .where(eq(memberships.userId, userId))
    .orderBy(asc(memberships.createdAt), asc(accounts.id));
  return rows.map((r) => ({ id: r.id, name: organisationName(r), role: r.role }));
}

/** Moves a session to another of the user's organisations; one they do not belong to is "not found". */
export async function switchOrganisation({
  ctx,
  token,
  userId,
  accountId,
}: {
  ctx: Pick<Ctx, 'db'>;
  token: string;
  userId: string;
  accountId: string;
}): Promise<OrganisationView> {
  const organisation = (await listOrganisations({ ctx, userId })).find((o) => o.id === accountId);
  if (!organisation) {
    throw new ServiceError('not_found', `You are not a member of an organisation '${accountId}'.`, {
      param: 'accountId',
    });
  }
  await setSessionOrganisation({ ctx, token, accountId });
  return organisation;
}
