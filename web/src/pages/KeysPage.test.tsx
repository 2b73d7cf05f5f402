import type { ApiKeyView } from '@tessera/shared';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeTrpcError, renderWithTrpc } from '../test/fake-trpc';
import { KeysPage } from './KeysPage';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function keyStore() {
  const keys: ApiKeyView[] = [];
  return {
    keys,
    handlers: {
      'keys.list': () => keys,
      'keys.create': (input: unknown) => {
        const { name, kind } = input as { name: string; kind: 'live' | 'test' };
        if (name === 'taken')
          throw new FakeTrpcError('BAD_REQUEST', 400, 'Invalid input', { name: ['Name already used'] });
        const view: ApiKeyView = {
          id: `k${keys.length + 1}`,
          name,
          kind,
          masked: `sk_${kind}_…WXYZ`,
          createdAt: '2026-01-01T00:00:00Z',
          lastUsedAt: null,
          revokedAt: null,
          scopes: null,
          models: null,
          expiresAt: null,
          requestsPerMinute: null,
          tokenBudget: null,
          cacheTtlSeconds: null,
          state: 'active',
          replacedById: null,
          ownerUserId: null,
        };
        keys.unshift(view);
        return { ...view, key: `sk_${kind}_secretsecretsecretWXYZ` };
      },
      'models.list': () => ({
        object: 'list',
        data: [
          {
            id: 'tessera-fast-4k',
            object: 'model',
            created: 0,
            owned_by: 'tessera',
            context_window: 4096,
            type: 'chat',
            max_output_tokens: 1024,
            description: '',
          },
        ],
      }),
      'keys.update': (input: unknown) => {
        const patch = input as Partial<ApiKeyView> & { id: string };
        const key = keys.find((k) => k.id === patch.id);
        if (!key) throw new FakeTrpcError('NOT_FOUND', 404, 'No API key');
        if ((patch.requestsPerMinute ?? 0) > 100)
          throw new FakeTrpcError('BAD_REQUEST', 400, 'Invalid input', {
            requestsPerMinute: [
              "requestsPerMinute must be within the plan's limit of 100 requests per minute",
            ],
          });
        Object.assign(key, patch);
        return key;
      },
      'keys.revoke': (input: unknown) => {
        const key = keys.find((k) => k.id === (input as { id: string }).id);
        if (key) key.revokedAt = new Date().toISOString();
        return { ok: true };
      },
    },
  };
}

describe('API keys page', () => {
  it('shows the empty state, creates a key, shows it once with a copy button, then lists it masked', async () => {
    const user = userEvent.setup();
    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    const store = keyStore();
    const { calls } = renderWithTrpc(<KeysPage />, store.handlers);

    expect(await screen.findByText('No keys yet')).toBeTruthy();
    await user.type(screen.getByLabelText('Name'), 'backend');
    await user.click(screen.getByLabelText(/Live: real models/));
    await user.click(screen.getByRole('button', { name: 'Create key' }));

    expect((await screen.findByTestId('new-key')).textContent).toBe('sk_live_secretsecretsecretWXYZ');
    expect(screen.getByRole('alert').textContent).toMatch(/will not be shown again/);
    const create = calls.find((c) => c.path === 'keys.create');
    expect(create?.input).toEqual({ name: 'backend', kind: 'live' });
    expect(create?.headers['x-tessera-csrf']).toBe('1');

    await user.click(screen.getByRole('button', { name: 'Copy key' }));
    expect(writeText).toHaveBeenCalledWith('sk_live_secretsecretsecretWXYZ');
    expect(await screen.findByRole('button', { name: 'Copied' })).toBeTruthy();

    await user.click(screen.getByRole('button', { name: 'I have saved it' }));
    expect(screen.queryByTestId('new-key')).toBeNull();
    const table = await screen.findByRole('table');
    expect(within(table).getByText('sk_live_…WXYZ')).toBeTruthy();
    expect(table.textContent).not.toContain('secretsecret');
  });

  it('checks the name with the shared schema before sending, and shows the server field errors', async () => {
    const user = userEvent.setup();
    const store = keyStore();
    const { calls } = renderWithTrpc(<KeysPage />, store.handlers);
    await screen.findByText('No keys yet');

    await user.click(screen.getByRole('button', { name: 'Create key' }));
    expect(await screen.findByText('Name is required')).toBeTruthy();
    expect(screen.getByLabelText('Name').getAttribute('aria-invalid')).toBe('true');
    expect(calls.some((c) => c.path === 'keys.create')).toBe(false);

    await user.type(screen.getByLabelText('Name'), 'taken');
    await user.click(screen.getByRole('button', { name: 'Create key' }));
    expect(await screen.findByText('Name already used')).toBeTruthy();
  });

  it('edits a key’s settings: sends the fields (null where nothing is chosen; the expiry only when changed) and shows server errors by the field', async () => {
    const user = userEvent.setup();
    const store = keyStore();
    store.handlers['keys.create']({ name: 'svc', kind: 'test' });
    const { calls } = renderWithTrpc(<KeysPage />, store.handlers);

    await user.click(await screen.findByRole('button', { name: 'Edit svc' }));
    const form = await screen.findByRole('form', { name: 'Settings of svc' });
    await user.click(within(form).getByLabelText('Chat completions'));
    await user.click(await within(form).findByLabelText('tessera-fast-4k'));
    await user.type(within(form).getByLabelText(/Requests per minute/), '500');
    await user.click(within(form).getByRole('button', { name: 'Save settings' }));
    expect(await within(form).findByText(/within the plan's limit of 100/)).toBeTruthy();

    await user.clear(within(form).getByLabelText(/Requests per minute/));
    await user.type(within(form).getByLabelText(/Requests per minute/), '20');
    await user.type(within(form).getByLabelText(/Cache identical chat answers/), '300');
    await user.click(within(form).getByRole('button', { name: 'Save settings' }));
    await waitFor(() => expect(screen.queryByRole('form', { name: 'Settings of svc' })).toBeNull());
    expect(calls.filter((c) => c.path === 'keys.update').at(-1)?.input).toEqual({
      id: 'k1',
      name: 'svc',
      scopes: ['chat'],
      models: ['tessera-fast-4k'],
      requestsPerMinute: 20,
      cacheTtlSeconds: 300,
    });
    expect((await screen.findByRole('table')).textContent).toContain(
      'Chat completions · tessera-fast-4k · 20 requests/min · cached 300 s',
    );
    expect(document.activeElement?.getAttribute('aria-label')).toBe('Edit svc');
  });

  it('Escape closes the edit form without saving and gives focus back to Edit', async () => {
    const user = userEvent.setup();
    const store = keyStore();
    store.handlers['keys.create']({ name: 'svc', kind: 'test' });
    const { calls } = renderWithTrpc(<KeysPage />, store.handlers);
    await user.click(await screen.findByRole('button', { name: 'Edit svc' }));
    const form = await screen.findByRole('form', { name: 'Settings of svc' });
    await user.type(within(form).getByLabelText(/Requests per minute/), '20');
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('form', { name: 'Settings of svc' })).toBeNull());
    expect(calls.some((c) => c.path === 'keys.update')).toBe(false);
    expect(document.activeElement?.getAttribute('aria-label')).toBe('Edit svc');
  });

  it('Rotate opens its choice below the row (not in the actions cell), focused; Escape gives focus back to Rotate', async () => {
    const user = userEvent.setup();
    const store = keyStore();
    store.handlers['keys.create']({ name: 'svc', kind: 'test' });
    const { calls } = renderWithTrpc(<KeysPage />, store.handlers);
    const rotate = await screen.findByRole('button', { name: 'Rotate svc' });
    await user.click(rotate);
    expect(rotate.getAttribute('aria-expanded')).toBe('true');
    const choice = screen.getByLabelText('Old key keeps working for');
    expect(document.activeElement).toBe(choice);
    // Its own row, across the table: the key's row keeps its Edit, Rotate and Revoke buttons.
    expect(choice.closest('td')?.getAttribute('colspan')).toBe('8');
    expect(rotate.isConnected).toBe(true);
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByLabelText('Old key keeps working for')).toBeNull());
    expect(document.activeElement?.getAttribute('aria-label')).toBe('Rotate svc');
    expect(calls.some((c) => c.path === 'keys.rotate')).toBe(false);
  });

  it('revokes a key only after confirmation', async () => {
    const user = userEvent.setup();
    const store = keyStore();
    store.handlers['keys.create']({ name: 'old', kind: 'test' });
    const { calls } = renderWithTrpc(<KeysPage />, store.handlers);

    await user.click(await screen.findByRole('button', { name: 'Revoke old' }));
    expect(calls.some((c) => c.path === 'keys.revoke')).toBe(false);
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    await user.click(screen.getByRole('button', { name: 'Revoke old' }));
    await user.click(screen.getByRole('button', { name: 'Yes, revoke' }));

    await waitFor(() => expect(screen.getByText(/^Revoked/)).toBeTruthy());
    expect(calls.find((c) => c.path === 'keys.revoke')?.input).toEqual({ id: 'k1' });
  });

  it('moves focus to the list of keys after "I have saved it", and announces the outcomes', async () => {
    const user = userEvent.setup();
    const store = keyStore();
    renderWithTrpc(<KeysPage />, store.handlers);
    await screen.findByText('No keys yet');
    const status = screen.getByRole('status');
    expect(status.textContent).toBe('');

    await user.type(screen.getByLabelText('Name'), 'backend{Enter}');
    await screen.findByTestId('new-key');
    expect(status.textContent).toBe('Key “backend” created. Copy it now: it will not be shown again.');
    expect(document.activeElement?.getAttribute('aria-labelledby')).toBe('reveal-title');
    // Escape must not throw away a key that is shown only once.
    await user.keyboard('{Escape}');
    expect(screen.getByTestId('new-key')).toBeTruthy();

    await user.click(screen.getByRole('button', { name: 'I have saved it' }));
    expect(document.activeElement).toBe(screen.getByRole('heading', { name: 'Your keys' }));
    expect(status.textContent).toBe('Key “backend” is listed below as sk_test_…WXYZ.');
  });

  it('keeps focus in the revoke confirmation: Cancel first, back to Revoke on Escape or Cancel, then on the outcome', async () => {
    const user = userEvent.setup();
    const store = keyStore();
    store.handlers['keys.create']({ name: 'old', kind: 'test' });
    renderWithTrpc(<KeysPage />, store.handlers);
    const revoke = await screen.findByRole('button', { name: 'Revoke old' });

    await user.click(revoke);
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Cancel' }));
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('button', { name: 'Yes, revoke' })).toBeNull();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Revoke old' }));

    await user.keyboard('{Enter}');
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Cancel' }));
    await user.keyboard('{Enter}');
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Revoke old' }));

    await user.keyboard('{Enter}');
    await user.click(screen.getByRole('button', { name: 'Yes, revoke' }));
    await waitFor(() => expect(document.activeElement?.textContent).toMatch(/^Revoked/));
    expect(screen.getByRole('status').textContent).toBe('Key “old” revoked. Calls with it are now refused.');
  });
});
