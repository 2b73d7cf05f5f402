import { cleanup, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeTrpcError, renderWithTrpc } from '../test/fake-trpc';
import { BudgetsPage } from './BudgetsPage';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const KEY = {
  id: 'key_1',
  name: 'backend',
  kind: 'live',
  masked: 'sk_live_…AB12',
  state: 'active',
};

function handlers(over: Record<string, (input: unknown) => unknown> = {}) {
  return {
    'budgets.list': () => ({
      currency: 'USD',
      budgets: [
        {
          scope: 'account',
          subjectId: 'acc_1',
          amountMicros: 10_000_000,
          period: 'month',
          usedMicros: 8_500_000,
          reservedMicros: 0,
          periodStart: '2026-11-01',
          resetsAt: '2026-12-01T00:00:00.000Z',
        },
      ],
    }),
    'keys.list': () => [KEY],
    'teams.members': () => [
      {
        userId: 'usr_1',
        email: 'dev@example.com',
        name: null,
        role: 'developer',
        joinedAt: '',
        liveKeys: 1,
        testKeys: 0,
      },
    ],
    'budgets.alerts': () => [
      {
        id: 'alert_1',
        scope: 'account',
        subjectId: 'acc_1',
        period: 'month',
        periodStart: '2026-11-01',
        thresholdPercent: 80,
        amountMicros: 10_000_000,
        usedMicros: 8_100_000,
        createdAt: new Date().toISOString(),
      },
    ],
    'webhooks.get': () => null,
    'webhooks.deliveries': () => [
      {
        id: 'whd_1',
        eventType: 'budget.threshold_reached',
        url: 'https://example.com/hook',
        status: 'pending',
        attempts: 2,
        lastStatusCode: 500,
        lastError: 'The endpoint answered 500.',
        createdAt: new Date().toISOString(),
        lastAttemptAt: new Date().toISOString(),
        nextAttemptAt: new Date(Date.now() + 60_000).toISOString(),
        deliveredAt: null,
      },
    ],
    ...over,
  };
}

describe('BudgetsPage', () => {
  it('shows each budget’s spend, the alerts and the delivery log', async () => {
    renderWithTrpc(<BudgetsPage />, handlers());
    expect(await screen.findByRole('heading', { name: 'Organisation' })).toBeTruthy();
    expect(screen.getByText('85% used')).toBeTruthy();
    expect(screen.getByRole('list', { name: 'Budget alerts' }).textContent).toContain('80 %');
    const log = await screen.findByRole('table', { name: 'Webhook deliveries' });
    expect(log.textContent).toContain('The endpoint answered 500.');
    expect(log.textContent).toContain('pending');
  });

  it('sends the amount in micro-units for the chosen key, and names a refused field', async () => {
    const { calls } = renderWithTrpc(
      <BudgetsPage />,
      handlers({
        'budgets.set': (input) => {
          const { budget } = input as { budget: { amountMicros: number } };
          if (budget.amountMicros > 1e12)
            throw new FakeTrpcError('BAD_REQUEST', 400, 'too much', {
              'budget.amountMicros': ['amountMicros must be at most 1,000,000,000,000,000'],
            });
          return null;
        },
      }),
    );
    await screen.findByRole('heading', { name: 'Organisation' });
    await waitFor(() => expect(screen.getByRole('option', { name: /Key backend/ })).toBeTruthy());
    await userEvent.selectOptions(screen.getByLabelText('Applies to'), 'key:key_1');
    await userEvent.type(screen.getByLabelText('Amount (USD)'), '12.5');
    await userEvent.selectOptions(screen.getByLabelText('Per'), 'day');
    await userEvent.click(screen.getByRole('button', { name: 'Save budget' }));
    await waitFor(() => expect(calls.some((c) => c.path === 'budgets.set')).toBe(true));
    expect(calls.find((c) => c.path === 'budgets.set')?.input).toEqual({
      scope: 'key',
      subjectId: 'key_1',
      budget: { amountMicros: 12_500_000, period: 'day' },
    });
    await userEvent.selectOptions(screen.getByLabelText('Applies to'), 'member:usr_1');
    await userEvent.click(screen.getByRole('button', { name: 'Save budget' }));
    await waitFor(() => expect(calls.filter((c) => c.path === 'budgets.set')).toHaveLength(2));
    expect(calls.filter((c) => c.path === 'budgets.set')[1]?.input).toMatchObject({
      scope: 'member',
      subjectId: 'usr_1',
    });
    await userEvent.clear(screen.getByLabelText('Amount (USD)'));
    await userEvent.type(screen.getByLabelText('Amount (USD)'), '99999999999');
    await userEvent.click(screen.getByRole('button', { name: 'Save budget' }));
    expect(await screen.findByText('amountMicros must be at most 1,000,000,000,000,000')).toBeTruthy();
  });

  it('shows the webhook secret once, after saving the URL', async () => {
    renderWithTrpc(
      <BudgetsPage />,
      handlers({
        'webhooks.set': (input) => ({
          url: (input as { url: string }).url,
          secret: 'whsec_abcdefghijklmnopqrstuvwxyz012345',
          secretLast4: '2345',
          updatedAt: new Date().toISOString(),
        }),
      }),
    );
    await userEvent.type(await screen.findByLabelText('Endpoint URL'), 'https://example.com/hook');
    await userEvent.click(screen.getByRole('button', { name: 'Save webhook' }));
    expect((await screen.findByTestId('webhook-secret')).textContent).toBe(
      'whsec_abcdefghijklmnopqrstuvwxyz012345',
    );
  });
});
