import { useQueries } from '@tanstack/react-query';
import { AUDIT_ACTION_LABELS, AUDIT_ACTIONS, type AuditAction, type AuditEventView } from '@tessera/shared';
import { useState } from 'react';
import { ScrollRegion } from '../components/ScrollRegion';
import { Empty, ErrorState, Loading } from '../components/States';
import { dateTime } from '../lib/format';
import { updateSearch, useSearch } from '../lib/router';
import { messageOf, useTRPC } from '../lib/trpc';

const PAGE = 50;
const DAY_MS = 86_400_000;

/** A `yyyy-mm-dd` day of the date inputs as the instant its local day starts (`to`: the next day's start). */
function dayStart(day: string | null, plusDays = 0): string | null {
  if (!day || !/^\d{4}-\d{2}-\d{2}$/.test(day)) return null;
  const start = new Date(`${day}T00:00:00`);
  if (Number.isNaN(start.getTime())) return null;
  return new Date(start.getTime() + plusDays * DAY_MS).toISOString();
}

const isAction = (v: string | null): v is AuditAction => AUDIT_ACTIONS.includes(v as AuditAction);

const show = (v: unknown): string =>
  v === null || v === undefined ? 'none' : typeof v === 'string' ? v : JSON.stringify(v);

/** One line a reader can take in: an edit's changed fields, else the key's name, else the details in brief. */
export function describeDetails(event: AuditEventView): string {
  const d = event.details;
  const changes = d.changes as Record<string, { before: unknown; after: unknown }> | undefined;
  if (changes && typeof changes === 'object') {
    const parts = Object.entries(changes).map(([k, c]) => `${k}: ${show(c.before)} → ${show(c.after)}`);
    return parts.length ? parts.join('; ') : 'No change';
  }
  if (event.action === 'plan.changed') {
    const before = d.before as Record<string, unknown> | undefined;
    const after = d.after as Record<string, unknown> | undefined;
    return `plan: ${show(before?.plan)} → ${show(after?.plan)}`;
  }
  if (event.action === 'key.rotated') return `“${show(d.name)}” replaced by ${show(d.replacementId)}`;
  if (typeof d.name === 'string') return `“${d.name}”${d.last4 ? ` (…${show(d.last4)})` : ''}`;
  if (event.action === 'sample_data.removed') return `${show(d.removedEvents)} sample requests removed`;
  if (typeof d.reason === 'string') return d.reason.replaceAll('_', ' ');
  return '';
}

function actorOf(event: AuditEventView): string {
  if (event.actor.kind === 'operator') return 'Operator (CLI)';
  if (event.actor.kind === 'system') return 'Tessera';
  return event.actor.email ?? event.actor.userId ?? 'Unknown';
}

/** The organisation's audit log: newest first, filtered by action and days, exported as CSV or JSON lines. */
export function AuditPage() {
  const trpc = useTRPC();
  const search = useSearch();
  const actionParam = search.get('action');
  const action = isAction(actionParam) ? actionParam : null;
  const fromDay = search.get('from');
  const toDay = search.get('to');
  const from = dayStart(fromDay);
  const to = dayStart(toDay, 1);
  const filters = { action, from, to };
  const filterKey = JSON.stringify(filters);
  // Cursors of the pages loaded after the first; a change of filters starts again from the first page.
  const [more, setMore] = useState<{ key: string; cursors: string[] }>({ key: filterKey, cursors: [] });
  const cursors = more.key === filterKey ? more.cursors : [];
  const pages = useQueries({
    queries: [null, ...cursors].map((after) =>
      trpc.audit.list.queryOptions({ ...filters, first: PAGE, after }),
    ),
  });
  const first = pages[0];
  const last = pages.at(-1);
  const events = pages.flatMap((p) => p.data?.events ?? []);

  const exportQuery = (format: 'csv' | 'jsonl') => {
    const qs = new URLSearchParams({ format });
    if (from) qs.set('from', from);
    if (to) qs.set('to', to);
    return `/api/audit/export?${qs}`;
  };
  const invalidRange = from !== null && to !== null && from >= to;

  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title">Audit log</h1>
      <p className="lede">
        Who did what in this organisation, and when: sign-ins, keys created, edited, rotated and revoked, plan
        changes. Events are kept for good and cannot be edited or deleted.
      </p>
      <div className="filters">
        <label>
          Action{' '}
          <select value={action ?? ''} onChange={(e) => updateSearch({ action: e.target.value || null })}>
            <option value="">All actions</option>
            {AUDIT_ACTIONS.map((a) => (
              <option key={a} value={a}>
                {AUDIT_ACTION_LABELS[a]}
              </option>
            ))}
          </select>
        </label>
        <label>
          From{' '}
          <input
            type="date"
            value={fromDay ?? ''}
            onChange={(e) => updateSearch({ from: e.target.value || null })}
          />
        </label>
        <label>
          To{' '}
          <input
            type="date"
            value={toDay ?? ''}
            onChange={(e) => updateSearch({ to: e.target.value || null })}
          />
        </label>
      </div>
      <div className="section-head">
        <p className="muted">
          Export {from || to ? 'the days chosen' : 'the last 30 days'} (every action; at most 366 days a
          file).
        </p>
        <div className="toolbar-controls">
          <a className="btn btn-small" href={exportQuery('csv')} download>
            Download CSV
          </a>
          <a className="btn btn-small" href={exportQuery('jsonl')} download>
            Download JSON lines
          </a>
        </div>
      </div>
      {invalidRange ? (
        <ErrorState message="The first day must not be after the last day." />
      ) : !first || first.isPending ? (
        <Loading label="Loading the audit log" />
      ) : first.isError ? (
        <ErrorState message={messageOf(first.error)} onRetry={() => first.refetch()} />
      ) : events.length === 0 ? (
        <Empty title={action || from || to ? 'No events match these filters' : 'No events yet'} />
      ) : (
        <>
          <ScrollRegion label="Audit events">
            <table className="stack">
              <caption className="sr-only">Audit events, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Action</th>
                  <th scope="col">Actor</th>
                  <th scope="col">Target</th>
                  <th scope="col">Details</th>
                  <th scope="col">Address</th>
                </tr>
              </thead>
              <tbody>
                {events.map((e) => (
                  <tr key={e.id}>
                    <td data-label="When">
                      <time dateTime={e.createdAt}>{dateTime(e.createdAt)}</time>
                    </td>
                    <td data-label="Action">{AUDIT_ACTION_LABELS[e.action] ?? e.action}</td>
                    <td data-label="Actor">{actorOf(e)}</td>
                    <td data-label="Target">{e.target ? <code>{e.target.id}</code> : '—'}</td>
                    <td className="message" data-label="Details">
                      {describeDetails(e)}
                    </td>
                    <td data-label="Address" title={e.userAgent ?? undefined}>
                      {e.ip ?? '—'}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollRegion>
          {last?.isError && <ErrorState message={messageOf(last.error)} onRetry={() => last.refetch()} />}
          {last?.data?.pageInfo.hasNextPage && (
            <button
              type="button"
              className="btn"
              disabled={last.isFetching}
              onClick={() => {
                const cursor = last.data?.pageInfo.endCursor;
                if (cursor) setMore({ key: filterKey, cursors: [...cursors, cursor] });
              }}
            >
              Show older events
            </button>
          )}
        </>
      )}
    </section>
  );
}
