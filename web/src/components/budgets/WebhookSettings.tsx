import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { dateTime } from '../../lib/format';
import { useRole } from '../../lib/role';
import { fieldErrorsOf, messageOf, useTRPC } from '../../lib/trpc';
import { CopyButton } from '../CopyButton';
import { Field } from '../Field';

/**
 * The organisation's webhook: its URL, and a signing secret shown once when it is made (the server keeps it
 * encrypted and shows only its last 4 characters afterwards).
 */
export function WebhookSettings() {
  const trpc = useTRPC();
  const role = useRole();
  const manage = role.can('webhooks.manage');
  const queryClient = useQueryClient();
  const hook = useQuery(trpc.webhooks.get.queryOptions());
  const [url, setUrl] = useState('');
  const [secret, setSecret] = useState<string | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.webhooks.get.queryKey() });
  const set = useMutation(
    trpc.webhooks.set.mutationOptions({
      onSuccess: async (saved) => {
        setSecret(saved.secret);
        setErrors({});
        await refresh();
      },
      onError: (err) => setErrors(fieldErrorsOf(err)),
    }),
  );
  const remove = useMutation(
    trpc.webhooks.remove.mutationOptions({
      onSuccess: async () => {
        setSecret(null);
        await refresh();
      },
    }),
  );
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    set.mutate({ url: url || hook.data?.url || '' });
  };
  return (
    <form className="card" onSubmit={submit} noValidate aria-labelledby="webhook-title">
      <h2 id="webhook-title">Webhook</h2>
      <p className="muted">
        Budget alerts are POSTed here as JSON, signed in the <code>x-tessera-signature</code> header
        (HMAC-SHA256 of the timestamp and the body), and retried with growing waits until your endpoint
        answers 2xx.
      </p>
      {hook.data ? (
        <p>
          Sending to <code>{hook.data.url}</code>, signed with the secret ending in{' '}
          <code>{hook.data.secretLast4}</code> (set {dateTime(hook.data.updatedAt)}).
        </p>
      ) : (
        hook.isSuccess && <p className="muted">No webhook yet: alerts are shown here only.</p>
      )}
      {manage ? (
        <>
          <Field
            label="Endpoint URL"
            name="url"
            type="url"
            placeholder="https://example.com/tessera-webhook"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            hint="http:// or https://. Saving makes a new signing secret."
            error={errors.url}
          />
          {set.isError && !Object.keys(errors).length && (
            <p className="form-error" role="alert">
              {messageOf(set.error)}
            </p>
          )}
          <button type="submit" className="btn btn-primary" disabled={set.isPending}>
            {set.isPending ? 'Saving…' : hook.data ? 'Save and make a new secret' : 'Save webhook'}
          </button>{' '}
          {hook.data && (
            <button type="button" className="btn" disabled={remove.isPending} onClick={() => remove.mutate()}>
              Remove webhook
            </button>
          )}
        </>
      ) : (
        <p className="muted">{role.reason('webhooks.manage')}</p>
      )}
      {secret && (
        <div className="reveal" role="status">
          <p className="warning">Copy the signing secret now: it is shown only once.</p>
          <div className="secret-row">
            <code className="secret" data-testid="webhook-secret">
              {secret}
            </code>
            <CopyButton text={secret} label="Copy secret" />
          </div>
        </div>
      )}
    </form>
  );
}
