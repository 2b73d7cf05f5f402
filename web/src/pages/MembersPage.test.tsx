import type { MemberView, Role } from '@tessera/shared';
import { cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RoleProvider } from '../lib/role';
import { renderWithTrpc } from '../test/fake-trpc';
import { MembersPage } from './MembersPage';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const member = (userId: string, email: string, role: Role, liveKeys = 0): MemberView => ({
  userId,
  email,
  name: null,
  role,
  joinedAt: '2026-01-01T00:00:00Z',
  liveKeys,
  testKeys: 0,
});

function page(role: Role) {
  const members = [
    member('u1', 'owner@example.com', 'owner'),
    member('u2', 'dev@example.com', 'developer', 2),
  ];
  const fake = renderWithTrpc(
    <RoleProvider role={role} userId="u1">
      <MembersPage />
    </RoleProvider>,
    {
      'teams.members': () => members,
      'teams.invitations': () => [],
      'teams.invite': (input) => ({
        id: 'i1',
        role: (input as { role: Role }).role,
        createdAt: '2026-01-01T00:00:00Z',
        expiresAt: '2026-01-08T00:00:00Z',
        invitedBy: 'owner@example.com',
        token: 'T'.repeat(43),
        path: `/invite/${'T'.repeat(43)}`,
      }),
      'teams.changeRole': (input) => {
        const { userId, role: next } = input as { userId: string; role: Role };
        const m = members.find((x) => x.userId === userId);
        if (m) m.role = next;
        return { ok: true };
      },
      'teams.removeMember': (input) => {
        const { userId, transferKeysTo } = input as { userId: string; transferKeysTo?: string };
        const i = members.findIndex((x) => x.userId === userId);
        const keys = members[i]?.liveKeys ?? 0;
        members.splice(i, 1);
        return transferKeysTo
          ? { revokedKeys: 0, transferredKeys: keys }
          : { revokedKeys: keys, transferredKeys: 0 };
      },
    },
  );
  return { members, fake };
}

describe('MembersPage', () => {
  it('an owner changes a role, removes a member handing their keys to another, and gets an invitation link', async () => {
    const user = userEvent.setup();
    const { fake } = page('owner');
    const row = await screen.findByRole('row', { name: /dev@example\.com/ });
    await user.selectOptions(within(row).getByLabelText('Role of dev@example.com'), 'admin');
    expect(await screen.findByText('dev@example.com is now admin.')).toBeTruthy();
    expect(fake.calls.find((c) => c.path === 'teams.changeRole')?.input).toEqual({
      userId: 'u2',
      role: 'admin',
    });

    await user.click(within(row).getByRole('button', { name: 'Remove dev@example.com' }));
    await user.selectOptions(within(row).getByLabelText('Keys of dev@example.com'), 'u1');
    await user.click(within(row).getByRole('button', { name: 'Yes, remove' }));
    expect(fake.calls.find((c) => c.path === 'teams.removeMember')?.input).toEqual({
      userId: 'u2',
      transferKeysTo: 'u1',
    });
    expect(await screen.findByText(/removed; 2 key\(s\) transferred/)).toBeTruthy();

    await user.selectOptions(screen.getByLabelText('Role'), 'viewer');
    await user.click(screen.getByRole('button', { name: 'Create invitation link' }));
    expect((await screen.findByTestId('invitation-link')).textContent).toBe(
      `${window.location.origin}/invite/${'T'.repeat(43)}`,
    );
    expect(fake.calls.find((c) => c.path === 'teams.invite')?.input).toEqual({
      role: 'viewer',
      expiresInDays: 7,
    });
  });

  it('an admin reads members without the controls, and is told the role needed', async () => {
    page('admin');
    const row = await screen.findByRole('row', { name: /dev@example\.com/ });
    expect(within(row).queryByRole('combobox')).toBeNull();
    expect(within(row).queryByRole('button')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Create invitation link' })).toBeNull();
    expect(
      screen.getByText(
        /Managing members, roles and invitations needs the owner role; your role here is admin/,
      ),
    ).toBeTruthy();
  });

  it('a developer is told why the page is closed, and nothing is asked of the server', async () => {
    const { fake } = page('developer');
    expect(
      await screen.findByText(/Listing members and invitations needs the admin role or higher/),
    ).toBeTruthy();
    expect(fake.calls).toEqual([]);
  });
});
