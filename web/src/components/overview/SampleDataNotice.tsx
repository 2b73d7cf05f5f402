import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { gqlRequest } from '../../graphql/client';
import { SampleDataQuery } from '../../graphql/documents';
import { useRole } from '../../lib/role';
import { messageOf, useTRPC } from '../../lib/trpc';

/** Says that the demo account's traffic is sample data, and removes it in one action. */
export function SampleDataNotice() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const role = useRole();
  const sample = useQuery({
    queryKey: ['graphql', 'sampleData'],
    queryFn: ({ signal }) => gqlRequest(SampleDataQuery, {}, signal),
  });
  const remove = useMutation(
    trpc.demo.removeSampleData.mutationOptions({
      // Every figure on the page changes: read them all again.
      onSuccess: () => queryClient.invalidateQueries({ queryKey: ['graphql'] }),
    }),
  );
  if (!sample.data?.viewer.sampleData) {
    return remove.isSuccess ? (
      <p className="muted" role="status">
        Sample data removed: {remove.data.removedEvents.toLocaleString()} requests.
      </p>
    ) : null;
  }
  return (
    <section className="card sample-notice" aria-labelledby="sample-title">
      <h2 id="sample-title">Sample data</h2>
      <p>
        This demo account shows two weeks of made-up traffic, so that every chart and table has something to
        show. Your own calls are counted beside it.
      </p>
      {role.can('sample.remove') ? (
        <button
          type="button"
          className="btn btn-small"
          onClick={() => remove.mutate()}
          disabled={remove.isPending}
        >
          {remove.isPending ? 'Removing…' : 'Remove sample data'}
        </button>
      ) : (
        <p className="muted">{role.reason('sample.remove')}</p>
      )}
      {remove.isError && (
        <p className="form-error" role="alert">
          {messageOf(remove.error)}
        </p>
      )}
    </section>
  );
}
