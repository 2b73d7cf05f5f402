import { useEditorContext } from '@graphiql/react';
import { GraphiQL } from 'graphiql';
import { type ComponentProps, useEffect } from 'react';
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

/**
 * GraphiQL's editors are CodeMirror instances whose hidden input has no name; CodeMirror's own option gives
 * each one, so that a screen reader says which editor has focus. Rendered inside GraphiQL (as its logo), where
 * the editors' context is.
 */
function EditorLabels() {
  const { queryEditor, variableEditor, responseEditor } = useEditorContext({ nonNull: true });
  useEffect(() => {
    queryEditor?.setOption('screenReaderLabel', 'GraphQL query');
    variableEditor?.setOption('screenReaderLabel', 'Query variables (JSON)');
    responseEditor?.setOption('screenReaderLabel', 'Result (read only)');
  }, [queryEditor, variableEditor, responseEditor]);
  return null;
}

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
        >
          <GraphiQL.Logo>
            <EditorLabels />
            <span className="graphiql-logo-text">
              Graph<em>i</em>QL
            </span>
          </GraphiQL.Logo>
        </GraphiQL>
      </div>
    </section>
  );
}
