import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ApiKeyView, CreatedApiKey } from '@tessera/shared';
import { type KeyboardEvent, useEffect, useId, useRef, useState } from 'react';
import { messageOf, useTRPC } from '../../lib/trpc';

/** How long the old key keeps working after a rotation. */
const GRACE_CHOICES = [
  { seconds: 3600, label: '1 hour' },
  { seconds: 86_400, label: '1 day' },
  { seconds: 7 * 86_400, label: '7 days' },
  { seconds: 0, label: 'No time: stop it now' },
] as const;

/**
 * Rotating a key in place: pick how long the old key keeps working, confirm, and the replacement (same settings)
 * is handed to `onRotated` to be shown once. Focus moves into the choice, and back to Rotate when cancelled.
 */
export function RotateKeyControl({
  apiKey,
  onRotated,
}: {
  apiKey: ApiKeyView;
  onRotated: (replacement: CreatedApiKey, previous: ApiKeyView) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [grace, setGrace] = useState<number>(GRACE_CHOICES[0].seconds);
  const [focus, setFocus] = useState<'select' | 'button' | null>(null);
  const selectRef = useRef<HTMLSelectElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const selectId = useId();
  const rotate = useMutation(
    trpc.keys.rotate.mutationOptions({
      onSuccess: async (result) => {
        await queryClient.invalidateQueries({ queryKey: trpc.keys.list.queryKey() });
        setOpen(false);
        onRotated(result.key, result.previous);
      },
    }),
  );

  useEffect(() => {
    const target = focus === 'select' ? selectRef.current : focus === 'button' ? buttonRef.current : null;
    if (!target) return;
    target.focus();
    setFocus(null);
  });

  const cancel = () => {
    setOpen(false);
    setFocus('button');
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key !== 'Escape' || rotate.isPending) return;
    e.preventDefault();
    cancel();
  };

  if (!open)
    return (
      <button
        type="button"
        className="btn btn-small"
        ref={buttonRef}
        aria-label={`Rotate ${apiKey.name}`}
        onClick={() => {
          setOpen(true);
          setFocus('select');
        }}
      >
        Rotate
      </button>
    );
  return (
    <fieldset className="confirm" onKeyDown={onKeyDown}>
      <legend className="sr-only">Rotate {apiKey.name}</legend>
      <label htmlFor={selectId}>Old key keeps working for</label>
      <select id={selectId} ref={selectRef} value={grace} onChange={(e) => setGrace(Number(e.target.value))}>
        {GRACE_CHOICES.map((c) => (
          <option key={c.seconds} value={c.seconds}>
            {c.label}
          </option>
        ))}
      </select>
      <button
        type="button"
        className="btn btn-primary btn-small"
        disabled={rotate.isPending}
        onClick={() => rotate.mutate({ id: apiKey.id, gracePeriodSeconds: grace })}
      >
        {rotate.isPending ? 'Rotating…' : 'Create replacement'}
      </button>
      <button type="button" className="btn btn-small" onClick={cancel}>
        Cancel
      </button>
      {rotate.isError && (
        <span className="field-error" role="alert">
          {messageOf(rotate.error)}
        </span>
      )}
    </fieldset>
  );
}
