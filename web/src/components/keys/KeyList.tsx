import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ApiKeyView } from '@tessera/shared';
import { useState } from 'react';
import { date, relativeTime } from '../../lib/format';
import { messageOf, useTRPC } from '../../lib/trpc';

/** The account's keys, masked; revoking asks for confirmation in place. */
export function KeyList({ keys }: { keys: ApiKeyView[] }) {
  return (
    <div className="table-wrap">
      <table>
        <caption className="sr-only">API keys</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Key</th>
            <th scope="col">Kind</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {keys.map((k) => (
            <KeyRow key={k.id} apiKey={k} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function KeyRow({ apiKey }: { apiKey: ApiKeyView }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const revoke = useMutation(
    trpc.keys.revoke.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.keys.list.queryKey() }),
    }),
  );
  const revoked = apiKey.revokedAt !== null;
  return (
    <tr className={revoked ? 'revoked' : undefined}>
      <td>{apiKey.name}</td>
      <td>
        <code>{apiKey.masked}</code>
      </td>
      <td>
        <span className={`badge badge-${apiKey.kind}`}>{apiKey.kind}</span>
      </td>
      <td>{date(apiKey.createdAt)}</td>
      <td>{apiKey.lastUsedAt ? relativeTime(apiKey.lastUsedAt) : 'Never'}</td>
      <td className="actions">
        {revoked ? (
          <span className="muted">Revoked {relativeTime(apiKey.revokedAt ?? apiKey.createdAt)}</span>
        ) : confirming ? (
          <fieldset className="confirm">
            <legend className="sr-only">Confirm revoking {apiKey.name}</legend>
            <span>Apps using it stop working at once.</span>
            <button
              type="button"
              className="btn btn-danger btn-small"
              disabled={revoke.isPending}
              onClick={() => revoke.mutate({ id: apiKey.id })}
            >
              {revoke.isPending ? 'Revoking…' : 'Yes, revoke'}
            </button>
            <button type="button" className="btn btn-small" onClick={() => setConfirming(false)}>
              Cancel
            </button>
            {revoke.isError && (
              <span className="field-error" role="alert">
                {messageOf(revoke.error)}
              </span>
            )}
          </fieldset>
        ) : (
          <button
            type="button"
            className="btn btn-small"
            aria-label={`Revoke ${apiKey.name}`}
            onClick={() => setConfirming(true)}
          >
            Revoke
          </button>
        )}
      </td>
    </tr>
  );
}
