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
 * Rotating a key: pick how long the old key keeps working, confirm, and the replacement (same settings) is handed
 * to `onRotated` to be shown once. Shown below the key's row (not in its actions cell, where it widened the table
 * past a laptop's screen); focus starts on the choice, and `onCancel` (button or Escape) hands it back.
 */
export function RotateKeyPanel({
  apiKey,
  onRotated,
  onCancel,
}: {
  apiKey: ApiKeyView;
  onRotated: (replacement: CreatedApiKey, previous: ApiKeyView) => void;
  onCancel: () => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [grace, setGrace] = useState<number>(GRACE_CHOICES[0].seconds);
  const selectRef = useRef<HTMLSelectElement>(null);
  const selectId = useId();
  const rotate = useMutation(
    trpc.keys.rotate.mutationOptions({
      onSuccess: async (result) => {
        await queryClient.invalidateQueries({ queryKey: trpc.keys.list.queryKey() });
        onRotated(result.key, result.previous);
      },
    }),
  );

  useEffect(() => selectRef.current?.focus(), []);

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key !== 'Escape' || rotate.isPending) return;
    e.preventDefault();
    onCancel();
  };

  return (
    <fieldset className="confirm rotate-key" onKeyDown={onKeyDown}>
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
      <button type="button" className="btn btn-small" onClick={onCancel}>
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
