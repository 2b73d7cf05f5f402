import { cleanup, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderWithTrpc } from '../test/fake-trpc';
import { PlaygroundPage } from './PlaygroundPage';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const models = {
  object: 'list',
  data: [
    {
      id: 'tessera-fast-4k',
      object: 'model',
      created: 0,
      owned_by: 'x',
      context_window: 4096,
      max_output_tokens: 1024,
      description: '',
    },
    {
      id: 'tessera-reason-8k',
      object: 'model',
      created: 0,
      owned_by: 'x',
      context_window: 8192,
      max_output_tokens: 1024,
      description: '',
    },
  ],
};

describe('playground chat', () => {
  it('streams the reply token by token with the pasted key and the chosen model', async () => {
    const user = userEvent.setup();
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const seen: { auth: string | null; body: unknown }[] = [];
    renderWithTrpc(<PlaygroundPage />, { 'models.list': () => models }, (url, init) => {
      expect(url.pathname).toBe('/v1/chat/completions');
      seen.push({
        auth: new Headers(init.headers).get('authorization'),
        body: JSON.parse(String(init.body)),
      });
      const enc = new TextEncoder();
      const body = new ReadableStream<Uint8Array>({
        async start(c) {
          c.enqueue(enc.encode('data: {"choices":[{"delta":{"content":"Hel"}}]}\n\n'));
          await gate;
          c.enqueue(enc.encode('data: {"choices":[{"delta":{"content":"lo!"}}]}\n\ndata: [DONE]\n\n'));
          c.close();
        },
      });
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
    });

    await user.click(screen.getByLabelText('An API key you paste'));
    await user.type(screen.getByLabelText('API key'), 'sk_test_pasted1234');
    await waitFor(() => expect(screen.getByRole('option', { name: 'tessera-reason-8k' })).toBeTruthy());
    await user.selectOptions(screen.getByLabelText('Model'), 'tessera-reason-8k');
    await user.type(screen.getByLabelText('Message'), 'Hi there');
    await user.click(screen.getByRole('button', { name: 'Send' }));

    await waitFor(() => expect(screen.getByTestId('assistant-reply').textContent).toBe('Hel'));
    expect(screen.getByRole('button', { name: 'Stop' })).toBeTruthy();
    release();
    await waitFor(() => expect(screen.getByTestId('assistant-reply').textContent).toBe('Hello!'));
    expect(seen[0]?.auth).toBe('Bearer sk_test_pasted1234');
    expect(seen[0]?.body).toEqual({
      model: 'tessera-reason-8k',
      messages: [{ role: 'user', content: 'Hi there' }],
      stream: true,
    });
  });

  it("shows the API's error message", async () => {
    const user = userEvent.setup();
    renderWithTrpc(<PlaygroundPage />, { 'models.list': () => models }, () =>
      Response.json(
        {
          error: {
            message: 'Incorrect API key provided: sk_test_…1234.',
            type: 'invalid_request_error',
            param: null,
            code: 'invalid_api_key',
          },
        },
        { status: 401 },
      ),
    );
    await user.click(screen.getByLabelText('An API key you paste'));
    await user.type(screen.getByLabelText('API key'), 'sk_test_wrong1234');
    await waitFor(() => expect(screen.getByRole('option', { name: 'tessera-fast-4k' })).toBeTruthy());
    await user.type(screen.getByLabelText('Message'), 'Hi');
    await user.click(screen.getByRole('button', { name: 'Send' }));
    expect((await screen.findByRole('alert')).textContent).toContain('Incorrect API key provided');
  });

  it('moves between the chat and code analysis tabs with the arrow keys', async () => {
    const user = userEvent.setup();
    renderWithTrpc(<PlaygroundPage />, { 'models.list': () => models });
    screen.getByRole('tab', { name: 'Chat' }).focus();
    await user.keyboard('{ArrowRight}');
    expect(screen.getByRole('tab', { name: 'Code analysis' }).getAttribute('aria-selected')).toBe('true');
    expect(document.activeElement).toBe(screen.getByRole('tab', { name: 'Code analysis' }));
    expect(screen.getByRole('tabpanel').querySelector('#pg-code')).toBeTruthy();
  });

  it('runs in test mode through the session by default: no key, the CSRF header, the session route', async () => {
    const user = userEvent.setup();
    const seen: { path: string; headers: Headers; credentials: RequestCredentials | undefined }[] = [];
    renderWithTrpc(<PlaygroundPage />, { 'models.list': () => models }, (url, init) => {
      seen.push({ path: url.pathname, headers: new Headers(init.headers), credentials: init.credentials });
      return new Response('data: {"choices":[{"delta":{"content":"Hi!"}}]}\n\ndata: [DONE]\n\n', {
        headers: { 'content-type': 'text/event-stream' },
      });
    });
    expect(screen.queryByLabelText('API key')).toBeNull();
    await waitFor(() => expect(screen.getByRole('option', { name: 'tessera-fast-4k' })).toBeTruthy());
    await user.type(screen.getByLabelText('Message'), 'Hello');
    await user.click(screen.getByRole('button', { name: 'Send' }));
    await waitFor(() => expect(screen.getByTestId('assistant-reply').textContent).toBe('Hi!'));
    expect(seen[0]?.path).toBe('/api/playground/chat/completions');
    expect(seen[0]?.headers.get('x-tessera-csrf')).toBe('1');
    expect(seen[0]?.headers.get('authorization')).toBeNull();
    expect(seen[0]?.credentials).toBe('same-origin');
  });
});
