import { useMutation, useQueryClient } from '@tanstack/react-query';
import { OrganisationSwitcher } from '../components/teams/OrganisationSwitcher';
import { navigate } from '../lib/router';
import { useTRPC } from '../lib/trpc';

/** A signed-in user whose session's organisation is gone (they were removed): pick another, or wait for a link. */
export function NoOrganisationPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const signOut = useMutation(
    trpc.auth.signOut.mutationOptions({
      onSuccess: () => {
        queryClient.clear();
        navigate('/signin', { replace: true });
      },
    }),
  );
  return (
    <main className="auth" id="main">
      <div className="auth-card">
        <h1>No organisation</h1>
        <p>
          You are not a member of this organisation any more. Choose another one you belong to, or open an
          invitation link you were sent.
        </p>
        <OrganisationSwitcher currentId={null} />
        <p className="auth-switch">
          <button type="button" className="btn btn-ghost" onClick={() => signOut.mutate()}>
            Sign out
          </button>
        </p>
      </div>
    </main>
  );
}
