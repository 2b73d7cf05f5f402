import { Link } from '../../lib/router';
import { ScrollRegion } from '../ScrollRegion';

/** What a new account sees instead of empty charts: the three steps to a first request. */
export function FirstCall({
  origin = window.location.origin,
  mode = 'test',
}: {
  origin?: string;
  /** The mode the overview shows: its empty state asks for a key of that mode. */
  mode?: 'live' | 'test';
}) {
  return (
    <section className="card first-call" aria-labelledby="first-call-title">
      <h2 id="first-call-title">Make your first call</h2>
      <ol>
        <li>
          <Link to="/keys">Create a {mode} key</Link> on the API keys page and copy it (it is shown once).
          {mode === 'live' &&
            ' Live keys reach the real model providers and use your monthly token allowance; test keys never do.'}
        </li>
        <li>
          On your server, put it in an environment variable: <code>export TESSERA_API_KEY=sk_{mode}_…</code>
        </li>
        <li>
          Call the API:
          <ScrollRegion label="curl example" className="code-scroll">
            <pre>
              <code>{`curl ${origin}/v1/chat/completions \\
  -H "Authorization: Bearer $TESSERA_API_KEY" \\
  -H "Content-Type: application/json" \\
  -d '{"model":"tessera-fast-4k","messages":[{"role":"user","content":"Hello"}]}'`}</code>
            </pre>
          </ScrollRegion>
        </li>
      </ol>
      <p className="muted">
        Your requests, latency, tokens and errors show up here within a few seconds. Or try a model right away
        in the <Link to="/playground">playground</Link>.
      </p>
    </section>
  );
}
