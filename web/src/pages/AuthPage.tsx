import { useMutation, useQueryClient } from '@tanstack/react-query';
import { SignInInput, SignUpInput } from '@tessera/shared';
import { type FormEvent, type ReactNode, useRef, useState } from 'react';
import { Field } from '../components/Field';
import { Link, navigate } from '../lib/router';
import { fieldErrorsOf, messageOf, useTRPC } from '../lib/trpc';
import { zodFieldErrors } from '../lib/validation';

type Mode = 'signIn' | 'signUp';

/** The server's rules (modules/accounts password-policy.ts) in a line; its refusal names the one broken. */
const PASSWORD_HINT = 'At least 10 characters, hard to guess, and not your email.';

/**
 * Sign in and sign up share one form: the same fields, checked by the same shared schemas as the server. With
 * an `invitation` (the invite page), sign-up joins that organisation and sign-in comes back to accept it.
 */
export function AuthPage({
  mode: initialMode,
  invitation,
  intro,
}: {
  mode: Mode;
  invitation?: string;
  intro?: ReactNode;
}) {
  const [invitedMode, setInvitedMode] = useState<Mode>(initialMode);
  const mode = invitation ? invitedMode : initialMode;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const onSuccess = async () => {
    await queryClient.invalidateQueries();
    // A sign-in from the invite page stays there, to accept.
    if (!invitation || mode === 'signUp') navigate('/', { replace: true });
  };
  const formRef = useRef<HTMLFormElement>(null);
  /**
   * The submit button is disabled while the request runs, which drops focus to the page: after a refusal, focus
   * goes to the first field at fault, else to the password (a wrong one is the usual cause), selected to retype.
   */
  const focusAfterError = (fields: Record<string, string>) => {
    const name = ['name', 'email', 'password'].find((f) => fields[f]) ?? 'password';
    const input = formRef.current?.elements.namedItem(name);
    if (input instanceof HTMLInputElement) {
      input.focus();
      input.select();
    }
  };
  const onError = (err: unknown) => {
    const fields = fieldErrorsOf(err);
    setErrors(fields);
    setFormError(Object.keys(fields).length ? null : messageOf(err));
    focusAfterError(fields);
  };
  const signIn = useMutation(trpc.auth.signIn.mutationOptions({ onSuccess, onError }));
  const signUp = useMutation(trpc.auth.signUp.mutationOptions({ onSuccess, onError }));
  const pending = signIn.isPending || signUp.isPending;
  const isSignUp = mode === 'signUp';

  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const raw = {
      email: String(form.get('email') ?? ''),
      password: String(form.get('password') ?? ''),
      ...(isSignUp && form.get('name') ? { name: String(form.get('name')) } : {}),
    };
    setFormError(null);
    const parsed = (isSignUp ? SignUpInput : SignInInput).safeParse(raw);
    if (!parsed.success) {
      const fields = zodFieldErrors(parsed.error);
      setErrors(fields);
      focusAfterError(fields);
      return;
    }
    setErrors({});
    if (isSignUp) signUp.mutate({ ...(parsed.data as SignUpInput), ...(invitation && { invitation }) });
    else signIn.mutate(parsed.data);
  };

  return (
    <main className="auth" id="main">
      <div className="auth-card">
        <p className="brand">
          <span className="brand-mark" aria-hidden="true">
            ◆
          </span>
          Tessera
        </p>
        <h1>{isSignUp ? 'Create your account' : 'Sign in'}</h1>
        {intro ?? (
          <p className="muted">
            {isSignUp
              ? 'Free plan: 100 requests a minute and 100K tokens a month. No card needed.'
              : 'Welcome back. Sign in to manage your keys and watch your usage.'}
          </p>
        )}
        <form
          ref={formRef}
          onSubmit={submit}
          noValidate
          aria-describedby={formError ? 'form-error' : undefined}
        >
          {isSignUp && <Field label="Name (optional)" name="name" autoComplete="name" error={errors.name} />}
          <Field label="Email" name="email" type="email" autoComplete="email" error={errors.email} required />
          <Field
            label="Password"
            name="password"
            type="password"
            autoComplete={isSignUp ? 'new-password' : 'current-password'}
            hint={isSignUp ? PASSWORD_HINT : undefined}
            error={errors.password}
            required
          />
          {formError && (
            <p id="form-error" className="form-error" role="alert">
              {formError}
            </p>
          )}
          <button type="submit" className="btn btn-primary btn-block" disabled={pending}>
            {pending ? 'Please wait…' : isSignUp ? 'Create account' : 'Sign in'}
          </button>
        </form>
        <p className="auth-switch">
          {invitation ? (
            <button
              type="button"
              className="btn btn-ghost"
              onClick={() => setInvitedMode(isSignUp ? 'signIn' : 'signUp')}
            >
              {isSignUp ? 'I already have an account: sign in' : 'New here? Create an account'}
            </button>
          ) : isSignUp ? (
            <>
              Already have an account? <Link to="/signin">Sign in</Link>
            </>
          ) : (
            <>
              New to Tessera? <Link to="/signup">Create an account</Link>
            </>
          )}
        </p>
      </div>
    </main>
  );
}
