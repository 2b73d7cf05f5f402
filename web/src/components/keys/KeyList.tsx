import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type ApiKeyView, type CreatedApiKey, KEY_SCOPE_LABELS, keyChangeAction } from '@tessera/shared';
import { type KeyboardEvent, useEffect, useRef, useState } from 'react';
import { date, dateTime, relativeTime } from '../../lib/format';
import { useRole } from '../../lib/role';
import { messageOf, useTRPC } from '../../lib/trpc';
import { ScrollRegion } from '../ScrollRegion';
import { EditKeyForm } from './EditKeyForm';
import { RotateKeyPanel } from './RotateKeyPanel';

/** A key's restrictions in a few words: "all endpoints, every model" when it has none. */
export function settingsSummary(k: ApiKeyView): string {
  const parts = [
    k.scopes ? k.scopes.map((s) => KEY_SCOPE_LABELS[s]).join(', ') : 'All endpoints',
    k.models ? k.models.join(', ') : 'every model',
  ];
  if (k.requestsPerMinute !== null) parts.push(`${k.requestsPerMinute} requests/min`);
  if (k.tokenBudget)
    parts.push(`${k.tokenBudget.tokens.toLocaleString('en-US')} tokens/${k.tokenBudget.period}`);
  if (k.cacheTtlSeconds !== null) parts.push(`cached ${k.cacheTtlSeconds.toLocaleString('en-US')} s`);
  return parts.join(' · ');
}

function stateText(k: ApiKeyView): string {
  switch (k.state) {
    case 'active':
      return k.expiresAt ? `Active, expires ${date(k.expiresAt)}` : 'Active';
    case 'rotating':
      return `Rotating: works until ${dateTime(k.expiresAt ?? k.createdAt)}`;
    case 'expired':
      return `Expired ${relativeTime(k.expiresAt ?? k.createdAt)}`;
    case 'revoked':
      return 'Revoked';
  }
}

/**
 * The account's keys, masked; revoking asks for confirmation in place; settings and rotation open below the row,
 * across the table (a card of its own on a phone), never inside a cell where they would widen the table.
 */
export function KeyList({
  keys,
  onRevoked,
  onSaved,
  onRotated,
}: {
  keys: ApiKeyView[];
  onRevoked: (key: ApiKeyView) => void;
  onSaved: (key: ApiKeyView) => void;
  onRotated: (replacement: CreatedApiKey, previous: ApiKeyView) => void;
}) {
  return (
    <ScrollRegion label="API keys">
      <table className="stack">
        <caption className="sr-only">API keys</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Key</th>
            <th scope="col">Kind</th>
            <th scope="col">State</th>
            <th scope="col">Limits</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {keys.map((k) => (
            <KeyRow key={k.id} apiKey={k} onRevoked={onRevoked} onSaved={onSaved} onRotated={onRotated} />
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
type FocusTarget = 'cancel' | 'revoke' | 'revoked' | 'edit' | 'rotate' | null;

function KeyRow({
  apiKey,
  onRevoked,
  onSaved,
  onRotated,
}: {
  apiKey: ApiKeyView;
  onRevoked: (key: ApiKeyView) => void;
  onSaved: (key: ApiKeyView) => void;
  onRotated: (replacement: CreatedApiKey, previous: ApiKeyView) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  // The form open below the row, if any.
  const [panel, setPanel] = useState<'edit' | 'rotate' | null>(null);
  const role = useRole();
  const changeAction = keyChangeAction(role.userId, apiKey);
  const editButton = useRef<HTMLButtonElement>(null);
  const rotateButton = useRef<HTMLButtonElement>(null);
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
    const target = {
      cancel: cancelButton,
      revoke: revokeButton,
      revoked: revokedNote,
      edit: editButton,
      rotate: rotateButton,
      none: null,
    }[focusTarget ?? 'none'];
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
    <>
      <tr className={revoked ? 'revoked' : undefined}>
        <td data-label="Name">{apiKey.name}</td>
        <td data-label="Key">
          <code>{apiKey.masked}</code>
        </td>
        <td data-label="Kind">
          <span className={`badge badge-${apiKey.kind}`}>{apiKey.kind}</span>
        </td>
        <td data-label="State">{stateText(apiKey)}</td>
        <td data-label="Limits">{settingsSummary(apiKey)}</td>
        <td data-label="Created">{date(apiKey.createdAt)}</td>
        <td data-label="Last used">{apiKey.lastUsedAt ? relativeTime(apiKey.lastUsedAt) : 'Never'}</td>
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
          ) : !role.can(changeAction) ? (
            // The role may not change this key: say which role could, instead of buttons that would be refused.
            <span className="muted" title={role.reason(changeAction)}>
              {role.short(changeAction)}
            </span>
          ) : (
            <>
              <button
                type="button"
                className="btn btn-small"
                ref={editButton}
                aria-label={`Edit ${apiKey.name}`}
                aria-expanded={panel === 'edit'}
                onClick={() => setPanel((p) => (p === 'edit' ? null : 'edit'))}
              >
                Edit
              </button>{' '}
              {apiKey.state === 'active' && (
                <>
                  <button
                    type="button"
                    className="btn btn-small"
                    ref={rotateButton}
                    aria-label={`Rotate ${apiKey.name}`}
                    aria-expanded={panel === 'rotate'}
                    onClick={() => setPanel((p) => (p === 'rotate' ? null : 'rotate'))}
                  >
                    Rotate
                  </button>{' '}
                </>
              )}
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
            </>
          )}
        </td>
      </tr>
      {panel && !revoked && (
        <tr className="detail-row">
          <td colSpan={8}>
            {panel === 'edit' ? (
              <EditKeyForm
                apiKey={apiKey}
                onDone={(saved) => {
                  setPanel(null);
                  setFocusTarget('edit');
                  if (saved) onSaved(saved);
                }}
              />
            ) : (
              <RotateKeyPanel
                apiKey={apiKey}
                onRotated={(replacement, previous) => {
                  setPanel(null);
                  onRotated(replacement, previous);
                }}
                onCancel={() => {
                  setPanel(null);
                  setFocusTarget('rotate');
                }}
              />
            )}
          </td>
        </tr>
      )}
    </>
  );
}
