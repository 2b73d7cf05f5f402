/** Issue 39: ten spaces, `aaaaaaaaaa` and the account's own email were accepted as passwords at sign-up. */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '../../src/db/schema';
import { randomBase62 } from '../../src/lib/ids';
import type { TestServer } from '../helpers/server';
import { type SignedIn, signUpOwner, startTeamsServer } from '../helpers/teams';
import { TrpcTestClient } from '../helpers/trpc-client';

let server: TestServer;
let owner: SignedIn;
beforeAll(async () => {
  server = await startTeamsServer();
  owner = await signUpOwner(server);
});
afterAll(async () => {
  await server?.close();
});

function newEmail(prefix: string): string {
  return `${prefix}.${randomBase62(6).toLowerCase()}@example.com`;
}

async function userExists(email: string): Promise<boolean> {
  const rows = await server.services.ctx.db.select().from(users).where(eq(users.email, email));
  return rows.length > 0;
}

/** Each refusal: 400 BAD_REQUEST, the reason beside the password field, and nobody created. */
async function expectRefused(input: { email: string; password: string; invitation?: string }, why: RegExp) {
  const res = await new TrpcTestClient(server.url).mutation('auth.signUp', input);
  expect(res.status, JSON.stringify(input.password)).toBe(400);
  expect(res.error?.data.code).toBe('BAD_REQUEST');
  const shown = res.error?.data.fieldErrors?.password;
  expect(shown, JSON.stringify(input.password)).toHaveLength(1);
  expect(shown?.[0]).toMatch(why);
  expect(res.error?.message).toBe(shown?.[0]);
  expect(await userExists(input.email)).toBe(false);
}

describe('passwords a new user may not choose', () => {
  it('refuses blank, one repeated character, the email, its name before the @, and guessable ones', async () => {
    await expectRefused({ email: newEmail('blank'), password: ' '.repeat(10) }, /only spaces/);
    await expectRefused({ email: newEmail('tabs'), password: ' \t \u3000 \t    ' }, /only spaces/);
    await expectRefused({ email: newEmail('repeat'), password: 'aaaaaaaaaa' }, /repeats one character/);
    await expectRefused({ email: newEmail('case'), password: 'AaAaAaAaAaAa' }, /repeats one character/);
    const email = newEmail('river.stone');
    await expectRefused({ email, password: email }, /contains your email/);
    await expectRefused({ email, password: email.toUpperCase() }, /contains your email/);
    const localPart = email.split('@')[0] ?? '';
    await expectRefused({ email, password: `${localPart}!2024` }, /its name before the @/);
    await expectRefused({ email: newEmail('weak'), password: 'zxcvbnm2024!' }, /too easy to guess/);
    await expectRefused({ email: newEmail('weak'), password: 'P@ssw0rd2024' }, /too easy to guess/);
  });

  it('refuses them when signing up through an invitation too, then accepts a strong one', async () => {
    const invite = await owner.client.mutation<{ token: string }>('teams.invite', { role: 'developer' });
    expect(invite.status).toBe(200);
    const invitation = invite.data?.token ?? '';
    const email = newEmail('invited');
    await expectRefused({ email, password: 'bbbbbbbbbbbb', invitation }, /repeats one character/);
    await expectRefused({ email, password: `my ${email}`, invitation }, /contains your email/);
    const joined = await new TrpcTestClient(server.url).mutation('auth.signUp', {
      email,
      password: 'tessellated lighthouse 42',
      invitation,
    });
    expect(joined.status).toBe(200);
    expect(await userExists(email)).toBe(true);
  });

  it('accepts a strong password that is none of these', async () => {
    const email = newEmail('strong');
    const res = await new TrpcTestClient(server.url).mutation('auth.signUp', {
      email,
      password: 'copper kettle whistles at dawn',
    });
    expect(res.status).toBe(200);
    expect(await userExists(email)).toBe(true);
  });
});
