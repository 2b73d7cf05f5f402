import { useQuery } from '@tanstack/react-query';
import type { CreatedApiKey } from '@tessera/shared';
import { useRef, useState } from 'react';
import { BackendSnippet } from '../components/keys/BackendSnippet';
import { CreateKeyForm } from '../components/keys/CreateKeyForm';
import { KeyList } from '../components/keys/KeyList';
import { NewKeyReveal } from '../components/keys/NewKeyReveal';
import { Empty, ErrorState, Loading } from '../components/States';
import { useRole } from '../lib/role';
import { messageOf, useTRPC } from '../lib/trpc';

export function KeysPage() {
  const trpc = useTRPC();
  const keys = useQuery(trpc.keys.list.queryOptions());
  const role = useRole();
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  // Outcomes (created, saved, revoked) are announced here; the region is always rendered so that screen readers
  // notice when its text changes.
  const [status, setStatus] = useState('');
  const listHeading = useRef<HTMLHeadingElement>(null);
  return (
    <section aria-labelledby="keys-title">
      <h1 id="keys-title">API keys</h1>
      <p className="lede">
        Keys authenticate your backend's calls. Test keys are free and never reach a real model.
      </p>
      <p className="sr-only" role="status">
        {status}
      </p>
      {created ? (
        <NewKeyReveal
          created={created}
          onDone={() => {
            setCreated(null);
            setStatus(`Key “${created.name}” is listed below as ${created.masked}.`);
            // The reveal and the button that had focus are going away: continue at the list of keys.
            listHeading.current?.focus();
          }}
        />
      ) : !role.can('keys.create') ? (
        <p className="muted">{role.reason('keys.create')}</p>
      ) : (
        <CreateKeyForm
          onCreated={(key) => {
            setCreated(key);
            setStatus(`Key “${key.name}” created. Copy it now: it will not be shown again.`);
          }}
        />
      )}
      <h2 ref={listHeading} tabIndex={-1}>
        Your keys
      </h2>
      {keys.isPending ? (
        <Loading label="Loading keys" />
      ) : keys.isError ? (
        <ErrorState message={messageOf(keys.error)} onRetry={() => keys.refetch()} />
      ) : keys.data.length === 0 ? (
        <Empty title="No keys yet">
          <p>Create a test key above to make your first call.</p>
        </Empty>
      ) : (
        <KeyList
          keys={keys.data}
          onRevoked={(k) => setStatus(`Key “${k.name}” revoked. Calls with it are now refused.`)}
          onSaved={(k) => setStatus(`Settings of “${k.name}” saved. They apply to its next calls.`)}
          onRotated={(replacement, previous) => {
            setCreated(replacement);
            setStatus(
              previous.expiresAt && Date.parse(previous.expiresAt) > Date.now()
                ? `Replacement for “${previous.name}” created; the old key works until ${new Date(previous.expiresAt).toLocaleString()}. Copy the new key now: it will not be shown again.`
                : `Replacement for “${previous.name}” created; the old key has stopped. Copy the new key now: it will not be shown again.`,
            );
          }}
        />
      )}
      <BackendSnippet />
    </section>
  );
}
