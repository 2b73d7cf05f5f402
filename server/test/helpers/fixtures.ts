import type { CreatedApiKey, KeyKind, KeySettings, Plan } from '@tessera/shared';
import type { AccountRow } from '../../src/db/schema';
import { randomBase62 } from '../../src/lib/ids';
import { createAccount as createAccountRow } from '../../src/modules/accounts';
import { createKey as createKeyRow } from '../../src/modules/keys';
import type { TestServer } from './server';

let counter = 0;

export async function createAccount(
  server: TestServer,
  overrides: {
    plan?: Plan;
    email?: string;
    customRequestsPerMinute?: number;
    customMonthlyTokens?: number;
  } = {},
): Promise<AccountRow & { password: string; ownerUserId: string }> {
  counter += 1;
  const password = `pw-${randomBase62(16)}`;
  const row = await createAccountRow({
    ctx: server.services.ctx,
    input: {
      email: overrides.email ?? `user${counter}-${randomBase62(6).toLowerCase()}@example.com`,
      password,
      ...overrides,
    },
  });
  return { ...row, password };
}

export async function createKey(
  server: TestServer,
  accountId: string,
  kind: KeyKind = 'test',
  name = 'test key',
  settings: KeySettings = {},
): Promise<CreatedApiKey> {
  return createKeyRow({
    ctx: server.services.ctx,
    accountId,
    input: { name, kind, ...settings },
    modelExists: (id) => server.services.catalogue.findAny(id) !== undefined,
  });
}

/** An account with one key: the usual starting point of an endpoint test. */
export async function createAccountWithKey(
  server: TestServer,
  options: { plan?: Plan; kind?: KeyKind } = {},
): Promise<{ account: AccountRow & { password: string; ownerUserId: string }; key: CreatedApiKey }> {
  const account = await createAccount(server, options.plan ? { plan: options.plan } : {});
  const key = await createKey(server, account.id, options.kind ?? 'test');
  return { account, key };
}
