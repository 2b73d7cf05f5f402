import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  type ApiKeyView,
  BudgetPeriod,
  KEY_SCOPE_LABELS,
  KEY_SCOPES,
  type KeyScope,
  UpdateKeyInput,
} from '@tessera/shared';
import { type FormEvent, useState } from 'react';
import { fieldErrorsOf, messageOf, useTRPC } from '../../lib/trpc';
import { zodFieldErrors } from '../../lib/validation';
import { Field } from '../Field';

/** `datetime-local` reads and writes local time without a zone: these convert from and to an ISO instant. */
function toLocalInput(iso: string | null): string {
  if (!iso) return '';
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

function fromLocalInput(value: string): string | null {
  if (!value) return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? value : new Date(ms).toISOString();
}

const optionalNumber = (value: FormDataEntryValue | null): number | null =>
  value === null || String(value).trim() === '' ? null : Number(value);

/**
 * A key's name and settings, saved all at once (an empty choice removes the restriction). Checked with the shared
 * schema first, then by the server against the plan and the catalogue; errors show beside their field.
 */
export function EditKeyForm({
  apiKey,
  onDone,
}: {
  apiKey: ApiKeyView;
  onDone: (saved: ApiKeyView | null) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const models = useQuery(trpc.models.list.queryOptions(undefined, { staleTime: 5 * 60_000 }));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const update = useMutation(
    trpc.keys.update.mutationOptions({
      onSuccess: async (saved) => {
        await queryClient.invalidateQueries({ queryKey: trpc.keys.list.queryKey() });
        onDone(saved);
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
    const form = new FormData(e.currentTarget);
    const scopes = form.getAll('scopes').map(String) as KeyScope[];
    const chosenModels = form.getAll('models').map(String);
    const budgetTokens = optionalNumber(form.get('budgetTokens'));
    const parsed = UpdateKeyInput.safeParse({
      id: apiKey.id,
      name: String(form.get('name') ?? ''),
      scopes: scopes.length ? scopes : null,
      models: chosenModels.length ? chosenModels : null,
      // Sent only when changed: the input holds minutes, and an expired or rotating key's time must stay as it is.
      ...(String(form.get('expiresAt') ?? '') !== toLocalInput(apiKey.expiresAt) && {
        expiresAt: fromLocalInput(String(form.get('expiresAt') ?? '')),
      }),
      requestsPerMinute: optionalNumber(form.get('requestsPerMinute')),
      cacheTtlSeconds: optionalNumber(form.get('cacheTtlSeconds')),
      ...(apiKey.kind === 'live' && {
        tokenBudget:
          budgetTokens === null ? null : { tokens: budgetTokens, period: String(form.get('budgetPeriod')) },
      }),
    });
    setFormError(null);
    if (!parsed.success) {
      setErrors(zodFieldErrors(parsed.error));
      return;
    }
    setErrors({});
    update.mutate(parsed.data);
  };

  const titleId = `edit-${apiKey.id}`;
  return (
    <form
      className="card edit-key"
      onSubmit={submit}
      noValidate
      aria-labelledby={titleId}
      // Escape cancels, as the revoke and rotate confirmations do; not while a save is under way.
      onKeyDown={(e) => {
        if (e.key === 'Escape' && !update.isPending) {
          e.preventDefault();
          onDone(null);
        }
      }}
    >
      <h3 id={titleId}>Settings of {apiKey.name}</h3>
      <Field label="Name" name="name" defaultValue={apiKey.name} error={errors.name} maxLength={64} />
      <fieldset className="segmented">
        <legend>Endpoints (none checked: all)</legend>
        {KEY_SCOPES.map((scope) => (
          <label key={scope}>
            <input
              type="checkbox"
              name="scopes"
              value={scope}
              defaultChecked={apiKey.scopes?.includes(scope) ?? false}
            />
            {KEY_SCOPE_LABELS[scope]}
          </label>
        ))}
        {errors.scopes && <p className="field-error">{errors.scopes}</p>}
      </fieldset>
      <fieldset className="segmented">
        <legend>Models (none checked: all)</legend>
        {models.data?.data.map((m) => (
          <label key={m.id}>
            <input
              type="checkbox"
              name="models"
              value={m.id}
              defaultChecked={apiKey.models?.includes(m.id) ?? false}
            />
            {m.id}
          </label>
        ))}
        {errors.models && <p className="field-error">{errors.models}</p>}
      </fieldset>
      <Field
        label="Expires (your local time; empty: never)"
        name="expiresAt"
        type="datetime-local"
        defaultValue={toLocalInput(apiKey.expiresAt)}
        error={errors.expiresAt}
      />
      <Field
        label="Requests per minute (empty: the plan's)"
        name="requestsPerMinute"
        type="number"
        inputMode="numeric"
        min={1}
        defaultValue={apiKey.requestsPerMinute ?? ''}
        error={errors.requestsPerMinute}
      />
      <Field
        label="Cache identical chat answers for (seconds; empty: off)"
        name="cacheTtlSeconds"
        type="number"
        inputMode="numeric"
        min={1}
        defaultValue={apiKey.cacheTtlSeconds ?? ''}
        error={errors.cacheTtlSeconds}
      />
      {apiKey.kind === 'live' && (
        <div className="budget-row">
          <Field
            label="Token budget (empty: the plan's allowance only)"
            name="budgetTokens"
            type="number"
            inputMode="numeric"
            min={1}
            defaultValue={apiKey.tokenBudget?.tokens ?? ''}
            error={errors['tokenBudget.tokens'] ?? errors.tokenBudget}
          />
          <div className="field">
            <label htmlFor={`${titleId}-period`}>Budget resets every</label>
            <select
              id={`${titleId}-period`}
              name="budgetPeriod"
              defaultValue={apiKey.tokenBudget?.period ?? 'day'}
            >
              {BudgetPeriod.options.map((p) => (
                <option key={p} value={p}>
                  {p}
                </option>
              ))}
            </select>
          </div>
        </div>
      )}
      {formError && (
        <p className="form-error" role="alert">
          {formError}
        </p>
      )}
      <div className="form-actions">
        <button type="submit" className="btn btn-primary" disabled={update.isPending}>
          {update.isPending ? 'Saving…' : 'Save settings'}
        </button>
        <button type="button" className="btn" onClick={() => onDone(null)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
