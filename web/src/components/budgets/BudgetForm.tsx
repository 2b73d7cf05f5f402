import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { BudgetPeriod } from '@tessera/shared';
import { type FormEvent, useId, useState } from 'react';
import { useRole } from '../../lib/role';
import { fieldErrorsOf, messageOf, useTRPC } from '../../lib/trpc';
import { Field } from '../Field';

const PERIODS: BudgetPeriod[] = ['day', 'week', 'month'];

/**
 * Sets a spend budget for the organisation or one live key. The amount is typed in currency units and sent in
 * micro-units (the API's unit), so that 12.50 is 12,500,000.
 */
export function BudgetForm({ currency }: { currency: string }) {
  const trpc = useTRPC();
  const role = useRole();
  const queryClient = useQueryClient();
  const keys = useQuery(trpc.keys.list.queryOptions());
  // Members are listed to those who may read them (admins and owners: the same who set budgets).
  const members = useQuery({ ...trpc.teams.members.queryOptions(), enabled: role.can('members.read') });
  const subjectId = useId();
  const periodId = useId();
  /** `account`, `key:<id>` or `member:<user id>`. */
  const [subject, setSubject] = useState('account');
  const [amount, setAmount] = useState('');
  const [period, setPeriod] = useState<BudgetPeriod>('month');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [status, setStatus] = useState('');
  const set = useMutation(
    trpc.budgets.set.mutationOptions({
      onSuccess: async () => {
        setErrors({});
        setStatus('Budget saved.');
        await queryClient.invalidateQueries({ queryKey: trpc.budgets.list.queryKey() });
      },
      onError: (err) => setErrors(fieldErrorsOf(err)),
    }),
  );
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const units = Number(amount);
    if (!amount || !Number.isFinite(units) || units <= 0) {
      setErrors({ 'budget.amountMicros': `Enter an amount in ${currency} greater than 0.` });
      return;
    }
    const budget = { amountMicros: Math.round(units * 1_000_000), period };
    const [scope, id] = subject.split(':', 2) as ['account' | 'key' | 'member', string | undefined];
    set.mutate(scope === 'account' ? { scope, budget } : { scope, subjectId: id ?? '', budget });
  };
  const liveKeys = (keys.data ?? []).filter((k) => k.kind === 'live' && k.state === 'active');
  return (
    <form className="card" onSubmit={submit} noValidate aria-labelledby="budget-form-title">
      <h2 id="budget-form-title">Set a budget</h2>
      <div className="field">
        <label htmlFor={subjectId}>Applies to</label>
        <select id={subjectId} value={subject} onChange={(e) => setSubject(e.target.value)}>
          <option value="account">The whole organisation</option>
          {liveKeys.map((k) => (
            <option key={k.id} value={`key:${k.id}`}>
              Key {k.name} ({k.masked})
            </option>
          ))}
          {(members.data ?? []).map((m) => (
            <option key={m.userId} value={`member:${m.userId}`}>
              Member {m.email} (their live keys)
            </option>
          ))}
        </select>
      </div>
      <Field
        label={`Amount (${currency})`}
        name="amount"
        type="number"
        min={0}
        step="0.01"
        value={amount}
        onChange={(e) => setAmount(e.target.value)}
        hint="Live calls only. A call is refused when its worst-case cost no longer fits."
        error={errors['budget.amountMicros'] ?? errors.subjectId}
      />
      <div className="field">
        <label htmlFor={periodId}>Per</label>
        <select id={periodId} value={period} onChange={(e) => setPeriod(e.target.value as BudgetPeriod)}>
          {PERIODS.map((p) => (
            <option key={p} value={p}>
              {p} (UTC)
            </option>
          ))}
        </select>
      </div>
      {set.isError && !Object.keys(errors).length && (
        <p className="form-error" role="alert">
          {messageOf(set.error)}
        </p>
      )}
      <button type="submit" className="btn btn-primary" disabled={set.isPending}>
        {set.isPending ? 'Saving…' : 'Save budget'}
      </button>
      <p className="sr-only" role="status">
        {status}
      </p>
    </form>
  );
}
