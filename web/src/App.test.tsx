import type { AccountView } from '@tessera/shared';
import { cleanup, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { App } from './App';
import { createQueryClient } from './lib/trpc';
import { FakeTrpcError, renderWithTrpc } from './test/fake-trpc';

const account: AccountView = {
  id: 'a1',
  email: 'ada@example.com',
  name: null,
  plan: 'free',
  limits: { requestsPerMinute: 100, monthlyTokens: 100_000 },
  createdAt: '2026-01-01T00:00:00Z',
};

beforeEach(() => {
  window.history.replaceState(null, '', '/');
  // jsdom does not implement scrolling; links scroll to the top after navigating.
  vi.stubGlobal('scrollTo', vi.fn());
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('App', () => {
  it('signs up: server field errors go beside their field, then the dashboard opens', async () => {
    const user = userEvent.setup();
    let me: AccountView | null = null;
    renderWithTrpc(<App />, {
      'auth.me': () => me,
      'auth.signUp': (input) => {
        const { email } = input as { email: string };
        if (email === 'taken@example.com')
          throw new FakeTrpcError('BAD_REQUEST', 400, 'Invalid input', {
            email: ['This email is already registered'],
          });
        me = { ...account, email };
        return me;
      },
      'keys.list': () => [],
    });
    await user.click(await screen.findByRole('link', { name: 'Create an account' }));
    await user.type(screen.getByLabelText('Email'), 'taken@example.com');
    await user.type(screen.getByLabelText('Password'), 'long enough password');
    await user.click(screen.getByRole('button', { name: 'Create account' }));
    expect(await screen.findByText('This email is already registered')).toBeTruthy();
    expect(screen.getByLabelText('Email').getAttribute('aria-invalid')).toBe('true');

    await user.clear(screen.getByLabelText('Email'));
    await user.type(screen.getByLabelText('Email'), 'new@example.com');
    await user.click(screen.getByRole('button', { name: 'Create account' }));
    expect(await screen.findByText('new@example.com')).toBeTruthy();
    expect(window.location.pathname).toBe('/');
    expect(screen.getByRole('navigation', { name: 'Dashboard' })).toBeTruthy();
  });

  it('returns to sign-in when the session ends while a page is open', async () => {
    const user = userEvent.setup();
    let me: AccountView | null = account;
    window.history.replaceState(null, '', '/keys');
    renderWithTrpc(
      <App />,
      {
        'auth.me': () => me,
        'keys.list': () => {
          me = null;
          throw new FakeTrpcError('UNAUTHORIZED', 401, 'Sign in to continue.');
        },
      },
      undefined,
      createQueryClient(),
    );
    expect(await screen.findByRole('heading', { name: 'Sign in' })).toBeTruthy();
    expect(screen.queryByRole('navigation', { name: 'Dashboard' })).toBeNull();
    await user.click(screen.getByRole('link', { name: 'Create an account' }));
    expect(window.location.pathname).toBe('/signup');
  });
});
