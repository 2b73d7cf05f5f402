import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ErrorState, Loading } from '../components/States';
import { navigate } from '../lib/router';
import { messageOf, useTRPC } from '../lib/trpc';
import { AuthPage } from './AuthPage';

/**
 * `/invite/<token>`: what the invitation is, then accept (signed in) or sign in / sign up through it. A sign-up
 * through the link joins this organisation only; a sign-in stays here to accept.
 */
export function InvitePage({ token, signedIn }: { token: string; signedIn: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const preview = useQuery({ ...trpc.teams.invitation.queryOptions({ token }), retry: false });
  const accept = useMutation(
    trpc.teams.accept.mutationOptions({
      onSuccess: async () => {
        queryClient.clear();
        navigate('/', { replace: true });
      },
    }),
  );
  if (preview.isPending) return <Loading label="Loading the invitation" />;
  if (preview.isError) {
    return (
      <main className="auth" id="main">
        <div className="auth-card">
          <h1>Invitation</h1>
          <ErrorState message={messageOf(preview.error)} />
        </div>
      </main>
    );
  }
  const intro = (
    <p data-testid="invitation-summary">
      {preview.data.invitedBy ?? 'Someone'} invites you to join <strong>{preview.data.organisation}</strong>{' '}
      as <strong>{preview.data.role}</strong>. The link works once, until{' '}
      {new Date(preview.data.expiresAt).toLocaleString()}.
    </p>
  );
  if (!signedIn) return <AuthPage mode="signUp" invitation={token} intro={intro} />;
  return (
    <main className="auth" id="main">
      <div className="auth-card">
        <h1>Join {preview.data.organisation}</h1>
        {intro}
        {accept.isError && (
          <p className="form-error" role="alert">
            {messageOf(accept.error)}
          </p>
        )}
        <button
          type="button"
          className="btn btn-primary btn-block"
          disabled={accept.isPending}
          onClick={() => accept.mutate({ token })}
        >
          {accept.isPending ? 'Joining…' : 'Accept invitation'}
        </button>
      </div>
    </main>
  );
}
