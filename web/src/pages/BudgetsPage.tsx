import { useQuery } from '@tanstack/react-query';
import { BudgetForm } from '../components/budgets/BudgetForm';
import { WebhookSettings } from '../components/budgets/WebhookSettings';
import { ScrollRegion } from '../components/ScrollRegion';
import { ErrorState, Loading } from '../components/States';
import { UsageBar } from '../components/UsageBar';
import { dateTime, money, relativeTime } from '../lib/format';
import { useRole } from '../lib/role';
import { messageOf, useTRPC } from '../lib/trpc';

const SCOPE_LABELS = { account: 'Organisation', key: 'Key', member: 'Member' } as const;

/** Spend budgets with this period's spend, the alerts they raised, the webhook and its delivery log. */
export function BudgetsPage() {
  const trpc = useTRPC();
  const role = useRole();
  const budgets = useQuery(trpc.budgets.list.queryOptions(undefined, { refetchInterval: 30_000 }));
  const keys = useQuery(trpc.keys.list.queryOptions());
  const members = useQuery({ ...trpc.teams.members.queryOptions(), enabled: role.can('members.read') });
  const alerts = useQuery(trpc.budgets.alerts.queryOptions(undefined, { refetchInterval: 30_000 }));
  const deliveries = useQuery(trpc.webhooks.deliveries.queryOptions(undefined, { refetchInterval: 10_000 }));
  if (budgets.isPending) return <Loading label="Loading budgets" />;
  if (budgets.isError)
    return <ErrorState message={messageOf(budgets.error)} onRetry={() => budgets.refetch()} />;
  const { currency } = budgets.data;
  const keyName = (id: string) => {
    const key = keys.data?.find((k) => k.id === id);
    return key ? `${key.name} (${key.masked})` : id;
  };
  const subjectOf = (scope: keyof typeof SCOPE_LABELS, id: string) =>
    scope === 'key'
      ? `Key ${keyName(id)}`
      : scope === 'member'
        ? `Member ${members.data?.find((m) => m.userId === id)?.email ?? id}`
        : 'Organisation';
  return (
    <section aria-labelledby="budgets-title">
      <h1 id="budgets-title">Budgets &amp; alerts</h1>
      <p className="lede">
        Spend limits in {currency} per UTC day, week or month, for the organisation and its live keys. A live
        call holds its worst-case cost while it runs and is refused (429 <code>spend_budget_exceeded</code>)
        when that no longer fits; alerts are raised at 50, 80 and 100 %.
      </p>
      {budgets.data.budgets.length === 0 ? (
        <p className="muted">No budgets yet: live calls are limited only by the plan's token allowance.</p>
      ) : (
        <div className="card-grid">
          {budgets.data.budgets.map((b) => (
            <div className="card" key={`${b.scope}:${b.subjectId}`}>
              <h2>{subjectOf(b.scope, b.subjectId)}</h2>
              <UsageBar
                used={b.usedMicros}
                limit={b.amountMicros}
                label={`${SCOPE_LABELS[b.scope]} budget used`}
              />
              <p>
                <strong>{money(b.usedMicros, currency)}</strong> of {money(b.amountMicros, currency)} this{' '}
                {b.period}
                {b.reservedMicros > 0 && <> ({money(b.reservedMicros, currency)} held by calls in flight)</>}.
                Resets {dateTime(b.resetsAt)}.
              </p>
            </div>
          ))}
        </div>
      )}
      {role.can('budgets.manage') ? (
        <BudgetForm currency={currency} />
      ) : (
        <p className="muted">{role.reason('budgets.manage')}</p>
      )}
      <h2>Alerts</h2>
      {alerts.isError ? (
        <ErrorState message={messageOf(alerts.error)} onRetry={() => alerts.refetch()} />
      ) : (alerts.data ?? []).length === 0 ? (
        <p className="muted">No alerts raised.</p>
      ) : (
        <ul className="plain-list" aria-label="Budget alerts">
          {(alerts.data ?? []).map((a) => (
            <li key={a.id}>
              <span className={`badge ${a.thresholdPercent >= 100 ? 'badge-danger' : ''}`}>
                {a.thresholdPercent} %
              </span>{' '}
              {subjectOf(a.scope, a.subjectId)}: {money(a.usedMicros, currency)} of{' '}
              {money(a.amountMicros, currency)} this {a.period}, {relativeTime(a.createdAt)}
            </li>
          ))}
        </ul>
      )}
      <WebhookSettings />
      <h2>Webhook deliveries</h2>
      {deliveries.isError ? (
        <ErrorState message={messageOf(deliveries.error)} onRetry={() => deliveries.refetch()} />
      ) : (deliveries.data ?? []).length === 0 ? (
        <p className="muted">Nothing sent yet.</p>
      ) : (
        <ScrollRegion label="Webhook deliveries">
          <table className="stack">
            <caption className="sr-only">Webhook deliveries</caption>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last answer</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {(deliveries.data ?? []).map((d) => (
                <tr key={d.id}>
                  <td>{d.eventType}</td>
                  <td>
                    {d.status}
                    {d.nextAttemptAt && (
                      <span className="muted"> (next try {dateTime(d.nextAttemptAt)})</span>
                    )}
                  </td>
                  <td>{d.attempts}</td>
                  <td>{d.lastError ?? (d.lastStatusCode === null ? '—' : `HTTP ${d.lastStatusCode}`)}</td>
                  <td>{relativeTime(d.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      )}
    </section>
  );
}
