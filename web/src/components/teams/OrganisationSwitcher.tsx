import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import { navigate } from '../../lib/router';
import { useTRPC } from '../../lib/trpc';

/** Shown when the user belongs to several organisations: the session then works in the one picked. */
export function OrganisationSwitcher({
  currentId,
  fallback,
}: {
  currentId: string | null;
  /** The organisation's name, shown as text when there is nothing to switch to. */
  fallback?: string;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const id = useId();
  const session = useQuery(trpc.auth.session.queryOptions());
  const switchTo = useMutation(
    trpc.teams.switch.mutationOptions({
      onSuccess: () => {
        // Everything on screen belonged to the other organisation.
        queryClient.clear();
        navigate('/', { replace: true });
      },
    }),
  );
  const organisations = session.data?.organisations ?? [];
  if (organisations.length < 2 && currentId !== null) {
    return fallback ? (
      // A long name is cut short with an ellipsis on a narrow header: the title shows it whole.
      <span className="account-name" title={fallback}>
        {fallback}
      </span>
    ) : null;
  }
  if (organisations.length === 0) return null;
  return (
    <span className="switcher">
      <label htmlFor={id} className="sr-only">
        Organisation
      </label>
      <select
        id={id}
        value={currentId ?? ''}
        disabled={switchTo.isPending}
        onChange={(e) => switchTo.mutate({ accountId: e.target.value })}
      >
        {currentId === null && <option value="">Choose an organisation</option>}
        {organisations.map((o) => (
          <option key={o.id} value={o.id}>
            {o.name} ({o.role})
          </option>
        ))}
      </select>
    </span>
  );
}
