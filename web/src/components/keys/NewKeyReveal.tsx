import type { CreatedApiKey } from '@tessera/shared';
import { useEffect, useRef } from 'react';
import { CopyButton } from '../CopyButton';

/** The only time a key's secret is on screen: a warning, the key, a copy button and a way to dismiss it. */
export function NewKeyReveal({ created, onDone }: { created: CreatedApiKey; onDone: () => void }) {
  const ref = useRef<HTMLElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <section ref={ref} tabIndex={-1} className="card reveal" aria-labelledby="reveal-title">
      <h2 id="reveal-title">
        Your new {created.kind} key “{created.name}”
      </h2>
      <p className="warning" role="alert">
        Copy it now and store it somewhere safe: it will not be shown again. Only a hash of it is kept.
      </p>
      <div className="secret-row">
        <code className="secret" data-testid="new-key">
          {created.key}
        </code>
        <CopyButton text={created.key} label="Copy key" />
      </div>
      <button type="button" className="btn" onClick={onDone}>
        I have saved it
      </button>
    </section>
  );
}
