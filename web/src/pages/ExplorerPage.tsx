import { GraphiQL } from 'graphiql';
import type { ComponentProps } from 'react';
import 'graphiql/style.css';
import { EXPLORER_EXAMPLES } from '../graphql/examples';

type Fetcher = ComponentProps<typeof GraphiQL>['fetcher'];

/** Same-origin POST with the session cookie: the explorer sees exactly what the dashboard's account sees. */
const fetcher: Fetcher = async (params, opts) => {
  const res = await fetch('/graphql', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...(opts?.headers ?? {}) },
    body: JSON.stringify(params),
  });
  return res.json();
};

/** GraphiQL, bundled (no CDN) and loaded only when this page opens; tabs pre-filled with example queries. */
export function ExplorerPage() {
  return (
    <section aria-labelledby="explorer-title" className="explorer">
      <h1 id="explorer-title">GraphQL explorer</h1>
      <p className="lede">
        Query your usage, keys and errors. Integrators call <code>/graphql</code> with{' '}
        <code>Authorization: Bearer &lt;key&gt;</code>; here your session is used.
      </p>
      <div className="explorer-frame">
        <GraphiQL
          fetcher={fetcher}
          defaultTabs={EXPLORER_EXAMPLES.map((e) => ({ query: e.query, variables: e.variables }))}
          defaultEditorToolsVisibility="variables"
          isHeadersEditorEnabled={false}
          forcedTheme="light"
        />
      </div>
    </section>
  );
}
