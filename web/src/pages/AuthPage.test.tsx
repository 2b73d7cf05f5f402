import { cleanup, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeTrpcError, renderWithTrpc } from '../test/fake-trpc';
import { AuthPage } from './AuthPage';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const REPEATED = 'This password repeats one character; choose one that is harder to guess.';

describe('sign-up form', () => {
  it("says what a password needs, then shows the server's reason for refusing one beside the field", async () => {
    const user = userEvent.setup();
    const { calls } = renderWithTrpc(<AuthPage mode="signUp" />, {
      'auth.signUp': () => {
        throw new FakeTrpcError('BAD_REQUEST', 400, REPEATED, { password: [REPEATED] });
      },
    });
    const password = screen.getByLabelText('Password');
    expect(password).toHaveProperty('type', 'password');
    expect(password.getAttribute('aria-invalid')).toBeNull();
    const describedBy = () =>
      (password.getAttribute('aria-describedby') ?? '')
        .split(' ')
        .map((id) => document.getElementById(id)?.textContent)
        .join(' ');
    expect(describedBy()).toBe('At least 10 characters, hard to guess, and not your email.');

    await user.type(screen.getByLabelText('Email'), 'river@example.com');
    await user.type(password, 'aaaaaaaaaa');
    await user.click(screen.getByRole('button', { name: 'Create account' }));

    expect(await screen.findByText(REPEATED)).toBeTruthy();
    expect(calls.map((c) => c.path)).toEqual(['auth.signUp']);
    expect(password.getAttribute('aria-invalid')).toBe('true');
    expect(describedBy()).toBe(REPEATED);
    // Beside the field, not as a form-level alert.
    expect(screen.queryByRole('alert')).toBeNull();
  });
});

describe('sign-in form', () => {
  it('after a refused sign-in, focus is on the password (selected), not lost to the page', async () => {
    const user = userEvent.setup();
    renderWithTrpc(<AuthPage mode="signIn" />, {
      'auth.signIn': () => {
        throw new FakeTrpcError('UNAUTHORIZED', 401, 'Invalid email or password.');
      },
    });
    await user.type(screen.getByLabelText('Email'), 'river@example.com');
    const password = screen.getByLabelText('Password') as HTMLInputElement;
    await user.type(password, 'wrong password here');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByRole('alert')).toBeTruthy();
    expect(document.activeElement).toBe(password);
    expect(password.selectionStart).toBe(0);
    expect(password.selectionEnd).toBe(password.value.length);
  });

  it('a field the form refuses before sending gets the focus', async () => {
    const user = userEvent.setup();
    const { calls } = renderWithTrpc(<AuthPage mode="signIn" />, {});
    await user.type(screen.getByLabelText('Password'), 'something');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(document.activeElement).toBe(screen.getByLabelText('Email'));
    expect(calls).toEqual([]);
  });
});
