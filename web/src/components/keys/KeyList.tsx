import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ApiKeyView } from '@tessera/shared';
import { type KeyboardEvent, useEffect, useRef, useState } from 'react';
import { date, relativeTime } from '../../lib/format';
import { messageOf, useTRPC } from '../../lib/trpc';
import { ScrollRegion } from '../ScrollRegion';

/** The account's keys, masked; revoking asks for confirmation in place. */
export function KeyList({ keys, onRevoked }: { keys: ApiKeyView[]; onRevoked: (key: ApiKeyView) => void }) {
  return (
    <ScrollRegion label="API keys">
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
            <KeyRow key={k.id} apiKey={k} onRevoked={onRevoked} />
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}

/**
 * Where focus goes as the row changes, so that it never falls to the page's body: into the confirmation (on its
 * harmless Cancel), back to Revoke when cancelled (button or Escape), to the "Revoked" note once revoked.
 */
type FocusTarget = 'cancel' | 'revoke' | 'revoked' | null;

function KeyRow({ apiKey, onRevoked }: { apiKey: ApiKeyView; onRevoked: (key: ApiKeyView) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const [focusTarget, setFocusTarget] = useState<FocusTarget>(null);
  const revokeButton = useRef<HTMLButtonElement>(null);
  const cancelButton = useRef<HTMLButtonElement>(null);
  const revokedNote = useRef<HTMLSpanElement>(null);
  const revoke = useMutation(
    trpc.keys.revoke.mutationOptions({
      // The row shows "Revoked" only once the list is read again: wait for it before moving focus there.
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.keys.list.queryKey() });
        setFocusTarget('revoked');
        onRevoked(apiKey);
      },
    }),
  );
  const revoked = apiKey.revokedAt !== null;

  useEffect(() => {
    const target = { cancel: cancelButton, revoke: revokeButton, revoked: revokedNote, none: null }[
      focusTarget ?? 'none'
    ];
    if (!target?.current) return;
    target.current.focus();
    setFocusTarget(null);
  });

  const cancel = () => {
    setConfirming(false);
    setFocusTarget('revoke');
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key !== 'Escape' || revoke.isPending) return;
    e.preventDefault();
    cancel();
  };

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
          <span className="muted" ref={revokedNote} tabIndex={-1}>
            Revoked {relativeTime(apiKey.revokedAt ?? apiKey.createdAt)}
          </span>
        ) : confirming ? (
          <fieldset className="confirm" onKeyDown={onKeyDown}>
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
            <button type="button" className="btn btn-small" ref={cancelButton} onClick={cancel}>
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
            ref={revokeButton}
            aria-label={`Revoke ${apiKey.name}`}
            onClick={() => {
              setConfirming(true);
              setFocusTarget('cancel');
            }}
          >
            Revoke
          </button>
        )}
      </td>
    </tr>
  );
}
