import { useQuery } from '@tanstack/react-query';
import { Empty, ErrorState, Loading } from '../components/States';
import { messageOf, useTRPC } from '../lib/trpc';

export function ModelsPage() {
  const trpc = useTRPC();
  const models = useQuery(trpc.models.list.queryOptions(undefined, { staleTime: 5 * 60_000 }));
  return (
    <section aria-labelledby="models-title">
      <h1 id="models-title">Models</h1>
      <p className="lede">
        Pass a model's id as <code>model</code> in a chat completion, or an embedding model's in a call to{' '}
        <code>/v1/embeddings</code>. Test keys answer every model from the simulator.
      </p>
      {models.isPending ? (
        <Loading label="Loading models" />
      ) : models.isError ? (
        <ErrorState message={messageOf(models.error)} onRetry={() => models.refetch()} />
      ) : models.data.data.length === 0 ? (
        <Empty title="No models are configured on this server" />
      ) : (
        <ul className="model-grid">
          {models.data.data.map((m) => (
            <li key={m.id} className="card model">
              <h2>
                <code>{m.id}</code>
              </h2>
              <p>{m.description}</p>
              <dl className="facts">
                {m.type === 'chat' ? (
                  <>
                    <div>
                      <dt>Context window</dt>
                      <dd>{m.context_window.toLocaleString()} tokens</dd>
                    </div>
                    <div>
                      <dt>Max output</dt>
                      <dd>{m.max_output_tokens.toLocaleString()} tokens</dd>
                    </div>
                  </>
                ) : (
                  <>
                    <div>
                      <dt>Embedding</dt>
                      <dd>
                        {m.dimensions.toLocaleString()} dimensions
                        {m.accepts_dimensions ? ' (or fewer)' : ''}
                      </dd>
                    </div>
                    <div>
                      <dt>Longest input</dt>
                      <dd>{m.context_window.toLocaleString()} tokens</dd>
                    </div>
                  </>
                )}
                <div className="wide">
                  <dt>Served by</dt>
                  <dd>{m.owned_by}</dd>
                </div>
              </dl>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
