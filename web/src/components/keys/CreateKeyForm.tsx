import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type CreatedApiKey, CreateKeyInput, type KeyKind } from '@tessera/shared';
import { type FormEvent, useState } from 'react';
import { fieldErrorsOf, messageOf, useTRPC } from '../../lib/trpc';
import { zodFieldErrors } from '../../lib/validation';
import { Field } from '../Field';

/** Name and kind of a new key; hands the created key (with its secret, shown once) to `onCreated`. */
export function CreateKeyForm({ onCreated }: { onCreated: (key: CreatedApiKey) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [kind, setKind] = useState<KeyKind>('test');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const create = useMutation(
    trpc.keys.create.mutationOptions({
      onSuccess: (key) => {
        void queryClient.invalidateQueries({ queryKey: trpc.keys.list.queryKey() });
        onCreated(key);
      },
      onError: (err) => {
        const fields = fieldErrorsOf(err);
        setErrors(fields);
        setFormError(Object.keys(fields).length ? null : messageOf(err));
      },
    }),
  );

  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const parsed = CreateKeyInput.safeParse({
      name: String(new FormData(e.currentTarget).get('name') ?? ''),
      kind,
    });
    setFormError(null);
    if (!parsed.success) {
      setErrors(zodFieldErrors(parsed.error));
      return;
    }
    setErrors({});
    create.mutate(parsed.data);
  };

  return (
    <form className="card create-key" onSubmit={submit} noValidate aria-labelledby="create-key-title">
      <h2 id="create-key-title">Create a key</h2>
      <Field
        label="Name"
        name="name"
        placeholder="e.g. production backend"
        error={errors.name}
        maxLength={64}
      />
      <fieldset className="segmented">
        <legend>Kind</legend>
        {(['test', 'live'] as const).map((k) => (
          <label key={k}>
            <input type="radio" name="kind" value={k} checked={kind === k} onChange={() => setKind(k)} />
            {k === 'test' ? 'Test: simulator, free' : 'Live: real models, uses your allowance'}
          </label>
        ))}
      </fieldset>
      {formError && (
        <p className="form-error" role="alert">
          {formError}
        </p>
      )}
      <button type="submit" className="btn btn-primary" disabled={create.isPending}>
        {create.isPending ? 'Creating…' : 'Create key'}
      </button>
    </form>
  );
}
