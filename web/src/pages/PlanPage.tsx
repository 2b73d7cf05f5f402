import { useQuery } from '@tanstack/react-query';
import { PLAN_LABELS } from '@tessera/shared';
import { ErrorState, Loading } from '../components/States';
import { UsageBar } from '../components/UsageBar';
import { abbreviate, date } from '../lib/format';
import { messageOf, useTRPC } from '../lib/trpc';

export function PlanPage() {
  const trpc = useTRPC();
  const status = useQuery(trpc.plan.status.queryOptions(undefined, { refetchInterval: 30_000 }));
  if (status.isPending) return <Loading label="Loading your plan" />;
  if (status.isError)
    return <ErrorState message={messageOf(status.error)} onRetry={() => status.refetch()} />;
  const { plan, limits, allowance } = status.data;
  return (
    <section aria-labelledby="plan-title">
      <h1 id="plan-title">Plan &amp; limits</h1>
      <p className="lede">
        What your account may use. Limits apply to the whole account, whichever key calls.
      </p>
      <div className="card-grid">
        <div className="card stat">
          <p className="stat-label">Plan</p>
          <p className="stat-value">{PLAN_LABELS[plan]}</p>
        </div>
        <div className="card stat">
          <p className="stat-label">Requests per minute</p>
          <p className="stat-value">{limits.requestsPerMinute.toLocaleString()}</p>
          <p className="muted">Per mode: live and test are counted apart.</p>
        </div>
        <div className="card stat">
          <p className="stat-label">Monthly token allowance</p>
          <p className="stat-value">{abbreviate(limits.monthlyTokens)}</p>
          <p className="muted">Live calls only; test keys are free.</p>
        </div>
      </div>
      <div className="card">
        <h2>Allowance this month</h2>
        <UsageBar used={allowance.used} limit={allowance.limit} />
        <p>
          <strong>{allowance.used.toLocaleString()}</strong> tokens used,{' '}
          <strong>{allowance.remaining.toLocaleString()}</strong> remaining of{' '}
          {allowance.limit.toLocaleString()}. Resets on <strong>{date(allowance.resetsAt)}</strong>.
        </p>
      </div>
    </section>
  );
}
