import type { AuditEventView, AuditPage as AuditPageData } from '@tessera/shared';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { renderWithTrpc } from '../test/fake-trpc';
import { AuditPage, describeDetails } from './AuditPage';

beforeEach(() => window.history.replaceState(null, '', '/audit'));
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function event(n: number, over: Partial<AuditEventView> = {}): AuditEventView & { cursor: string } {
  return {
    id: String(n),
    action: 'key.created',
    actor: { kind: 'user', userId: 'acc_1', email: 'owner@example.com' },
    target: { type: 'api_key', id: `key_${n}` },
    details: { name: `svc-${n}`, last4: 'AB12' },
    ip: '127.0.0.1',
    userAgent: 'test',
    createdAt: new Date(Date.UTC(2026, 0, 1, 12, 0, 60 - n)).toISOString(),
    cursor: `c${n}`,
    ...over,
  };
}

/** A log of 60 key.created events (ids 1..60, newest first), paged 50 at a time like the server. */
function log() {
  const all = Array.from({ length: 60 }, (_, i) => event(i + 1));
  return (input: unknown): AuditPageData => {
    const { first, after, action } = input as {
      first: number;
      after?: string | null;
      action?: string | null;
    };
    const matching = all.filter((e) => !action || e.action === action);
    const start = after ? matching.findIndex((e) => e.cursor === after) + 1 : 0;
    const events = matching.slice(start, start + first);
    return {
      events,
      pageInfo: { hasNextPage: start + first < matching.length, endCursor: events.at(-1)?.cursor ?? null },
    };
  };
}

describe('AuditPage', () => {
  it('lists the newest page, loads older pages by cursor, and filters by action through the URL', async () => {
    const { calls } = renderWithTrpc(<AuditPage />, { 'audit.list': log() });
    const table = await screen.findByRole('table', { name: 'Audit events, newest first' });
    expect(within(table).getAllByRole('row')).toHaveLength(51);
    expect(within(table).getAllByRole('row')[1]?.textContent).toContain('“svc-1” (…AB12)');
    await userEvent.click(screen.getByRole('button', { name: 'Show older events' }));
    await waitFor(() => expect(within(table).getAllByRole('row')).toHaveLength(61));
    expect(
      calls.filter((c) => c.path === 'audit.list').map((c) => (c.input as { after: string | null }).after),
    ).toEqual([null, 'c50']);
    expect(screen.queryByRole('button', { name: 'Show older events' })).toBeNull();

    await userEvent.selectOptions(screen.getByLabelText('Action'), 'Key revoked');
    expect(window.location.search).toBe('?action=key.revoked');
    await screen.findByText('No events match these filters');
  });

  it('exports the chosen days through the export links', async () => {
    window.history.replaceState(null, '', '/audit?from=2026-01-01&to=2026-01-31');
    renderWithTrpc(<AuditPage />, { 'audit.list': log() });
    await screen.findByRole('table', { name: 'Audit events, newest first' });
    const csv = new URL(
      screen.getByRole('link', { name: 'Download CSV' }).getAttribute('href') ?? '',
      'http://x',
    );
    expect(csv.pathname).toBe('/api/audit/export');
    expect(csv.searchParams.get('format')).toBe('csv');
    expect(Date.parse(csv.searchParams.get('from') ?? '')).toBe(new Date('2026-01-01T00:00:00').getTime());
    // `to` is exclusive: the day after the last day chosen.
    expect(Date.parse(csv.searchParams.get('to') ?? '')).toBe(new Date('2026-02-01T00:00:00').getTime());
    const jsonl = screen.getByRole('link', { name: 'Download JSON lines' }).getAttribute('href') ?? '';
    expect(jsonl).toContain('format=jsonl');
  });

  it('describes edits field by field', () => {
    expect(
      describeDetails(
        event(1, {
          action: 'key.updated',
          details: {
            changes: { name: { before: 'a', after: 'b' }, scopes: { before: null, after: ['chat'] } },
          },
        }),
      ),
    ).toBe('name: a → b; scopes: none → ["chat"]');
    expect(
      describeDetails(
        event(2, { action: 'plan.changed', details: { before: { plan: 'free' }, after: { plan: 'pro' } } }),
      ),
    ).toBe('plan: free → pro');
  });
});
