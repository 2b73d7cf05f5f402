import { cleanup, screen, waitFor, within } from '@testing-library/react';
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
      type: 'chat',
      max_output_tokens: 1024,
      description: '',
    },
    {
      id: 'tessera-reason-8k',
      object: 'model',
      created: 0,
      owned_by: 'x',
      context_window: 8192,
      type: 'chat',
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
      stream_options: { include_usage: true },
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

/** A simulated stream as the server sends it: the provider header, the fingerprint on each chunk, the usage. */
function simulatedStream(
  pieces: string[],
  usage = { prompt_tokens: 21, completion_tokens: 3, total_tokens: 24 },
) {
  const chunk = (body: Record<string, unknown>) =>
    `data: ${JSON.stringify({ system_fingerprint: 'tessera-sim-2', ...body })}\n\n`;
  const text =
    pieces.map((content) => chunk({ choices: [{ index: 0, delta: { content } }], usage: null })).join('') +
    chunk({ choices: [], usage }) +
    'data: [DONE]\n\n';
  return new Response(text, {
    headers: { 'content-type': 'text/event-stream', 'x-tessera-provider': 'simulator' },
  });
}

describe('playground chat settings and answers', () => {
  it('Enter sends, Shift+Enter breaks the line, and focus stays in the message box after the reply', async () => {
    const user = userEvent.setup();
    const bodies: { messages: { content: string }[] }[] = [];
    renderWithTrpc(<PlaygroundPage />, { 'models.list': () => models }, (_url, init) => {
      bodies.push(JSON.parse(String(init.body)));
      return simulatedStream(['Two ', 'lines.']);
    });
    await waitFor(() => expect(screen.getByRole('option', { name: 'tessera-fast-4k' })).toBeTruthy());
    const box = screen.getByLabelText('Message') as HTMLTextAreaElement;
    await user.click(box);
    await user.keyboard('First line{Shift>}{Enter}{/Shift}second line');
    expect(box.value).toBe('First line\nsecond line');
    expect(bodies).toHaveLength(0);
    await user.keyboard('{Enter}');
    await waitFor(() => expect(screen.getByTestId('assistant-reply').textContent).toBe('Two lines.'));
    expect(bodies[0]?.messages.at(-1)?.content).toBe('First line\nsecond line');
    expect(box.value).toBe('');
    await screen.findByRole('button', { name: 'Send' });
    expect(document.activeElement).toBe(box);

    // Sent with the button: the button leaves while the reply streams, and focus comes back to the box.
    await user.type(box, 'Again');
    await user.click(screen.getByRole('button', { name: 'Send' }));
    await waitFor(() => expect(screen.getAllByTestId('assistant-reply')).toHaveLength(2));
    await screen.findByRole('button', { name: 'Send' });
    // Each answer keeps its own usage and latency.
    expect(screen.getAllByTestId('reply-usage')).toHaveLength(2);
    expect(bodies[1]?.messages.map((m) => m.content)).toEqual([
      'First line\nsecond line',
      'Two lines.',
      'Again',
    ]);
    expect(document.activeElement).toBe(box);
    expect(document.activeElement).not.toBe(document.body);
  });

  it('Stop ends the reply, says its usage was not reported, and puts focus back in the message box', async () => {
    const user = userEvent.setup();
    renderWithTrpc(<PlaygroundPage />, { 'models.list': () => models }, (_url, init) => {
      const enc = new TextEncoder();
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(enc.encode('data: {"choices":[{"delta":{"content":"Partial"}}]}\n\n'));
          init.signal?.addEventListener('abort', () => c.error(new DOMException('aborted', 'AbortError')));
        },
      });
      return new Response(body, {
        headers: { 'content-type': 'text/event-stream', 'x-tessera-provider': 'simulator' },
      });
    });
    await waitFor(() => expect(screen.getByRole('option', { name: 'tessera-fast-4k' })).toBeTruthy());
    await user.type(screen.getByLabelText('Message'), 'Go on{Enter}');
    await waitFor(() => expect(screen.getByTestId('assistant-reply').textContent).toBe('Partial'));
    await user.click(screen.getByRole('button', { name: 'Stop' }));
    await screen.findByText('Stopped: usage not reported');
    expect(screen.queryByRole('alert')).toBeNull();
    expect(document.activeElement).toBe(screen.getByLabelText('Message'));
  });

  it('leaves focus alone when the page opens (only the end of a reply brings it to the message box)', async () => {
    renderWithTrpc(<PlaygroundPage />, { 'models.list': () => models });
    await waitFor(() => expect(screen.getByRole('option', { name: 'tessera-fast-4k' })).toBeTruthy());
    expect(document.activeElement).toBe(document.body);
  });

  it('sends the system prompt, model, temperature and max tokens, and shows usage, latency and the provider', async () => {
    const user = userEvent.setup();
    const bodies: unknown[] = [];
    renderWithTrpc(<PlaygroundPage />, { 'models.list': () => models }, (_url, init) => {
      bodies.push(JSON.parse(String(init.body)));
      return simulatedStream(['Be', ' brief.']);
    });
    await waitFor(() => expect(screen.getByRole('option', { name: 'tessera-reason-8k' })).toBeTruthy());
    await user.type(screen.getByLabelText('System prompt'), 'You are terse.');
    await user.selectOptions(screen.getByLabelText('Model'), 'tessera-reason-8k');
    await user.type(screen.getByLabelText('Temperature'), '0.3');
    await user.type(screen.getByLabelText('Max tokens'), '64');
    await user.type(screen.getByLabelText('Message'), 'Advice?{Enter}');
    await waitFor(() =>
      expect(screen.getByTestId('reply-usage').textContent).toBe('21 prompt + 3 completion tokens'),
    );
    expect(bodies[0]).toEqual({
      model: 'tessera-reason-8k',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Advice?' },
      ],
      temperature: 0.3,
      max_tokens: 64,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(screen.getByTestId('reply-latency').textContent).toMatch(
      /^\d+(\.\d+)? m?s \(first token \d+(\.\d+)? m?s\)$/,
    );
    expect(screen.getByTestId('reply-provider').textContent).toBe('Simulated · tessera-sim-2');
  });

  it('refuses settings the API would refuse, saying the limit, before sending', async () => {
    const user = userEvent.setup();
    const sent = vi.fn();
    renderWithTrpc(<PlaygroundPage />, { 'models.list': () => models }, () => {
      sent();
      return simulatedStream(['x']);
    });
    await waitFor(() => expect(screen.getByRole('option', { name: 'tessera-fast-4k' })).toBeTruthy());
    await user.type(screen.getByLabelText('Temperature'), '3');
    await user.type(screen.getByLabelText('Max tokens'), '5000');
    expect(screen.getByText('Temperature is a number from 0 to 2.')).toBeTruthy();
    expect(screen.getByText('tessera-fast-4k writes at most 1,024 tokens.')).toBeTruthy();
    expect(screen.getByLabelText('Temperature').getAttribute('aria-invalid')).toBe('true');
    await user.type(screen.getByLabelText('Message'), 'Hi{Enter}');
    expect((screen.getByRole('button', { name: 'Send' }) as HTMLButtonElement).disabled).toBe(true);
    expect(sent).not.toHaveBeenCalled();
  });

  it('copies the same request as curl and as openai SDK code, with a placeholder for the key', async () => {
    const user = userEvent.setup();
    renderWithTrpc(<PlaygroundPage />, { 'models.list': () => models }, () => simulatedStream(['Hi!']));
    await user.click(screen.getByLabelText('An API key you paste'));
    await user.type(screen.getByLabelText('API key'), 'sk_test_secretpasted99');
    await waitFor(() => expect(screen.getByRole('option', { name: 'tessera-fast-4k' })).toBeTruthy());
    await user.type(screen.getByLabelText('System prompt'), "Don't ramble.");
    await user.type(screen.getByLabelText('Message'), 'Hello{Enter}');
    const answer = (await screen.findByTestId('reply-usage')).closest('li') as HTMLElement;

    await user.click(within(answer).getByRole('button', { name: 'Copy as curl' }));
    const curl = await navigator.clipboard.readText();
    expect(curl).toContain(`curl ${window.location.origin}/v1/chat/completions`);
    expect(curl).toContain('-H "Authorization: Bearer $TESSERA_API_KEY"');
    // The body is the request as sent, its quote escaped for the shell's single quotes.
    const body = /-d '([\s\S]*)'$/.exec(curl)?.[1]?.replaceAll(`'\\''`, "'");
    expect(JSON.parse(body ?? '')).toEqual({
      model: 'tessera-fast-4k',
      messages: [
        { role: 'system', content: "Don't ramble." },
        { role: 'user', content: 'Hello' },
      ],
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(within(answer).getByRole('button', { name: 'Copied' })).toBeTruthy();

    await user.click(within(answer).getByRole('button', { name: 'Copy as openai SDK (Node)' }));
    const node = await navigator.clipboard.readText();
    expect(node).toContain("import OpenAI from 'openai';");
    expect(node).toContain('apiKey: process.env.TESSERA_API_KEY');
    expect(node).toContain(`baseURL: "${window.location.origin}/v1"`);
    expect(node).toContain('"model": "tessera-fast-4k"');
    for (const code of [curl, node]) expect(code).not.toContain('sk_test_secretpasted99');
  });
});

describe('playground code analysis', () => {
  it("shows a dataflow finding's trace, source to sink, with each step's line of code", async () => {
    const user = userEvent.setup();
    const code = 'name = request.args.get("name")\nquery = "SELECT " + name\ncur.execute(query)\n';
    renderWithTrpc(<PlaygroundPage />, { 'models.list': () => models }, (url) => {
      expect(url.pathname).toBe('/api/playground/code/analyze');
      return Response.json({
        language: 'python',
        language_detected: true,
        partial: false,
        summary: { issues: 2, lines: 3, functions: 0, max_cyclomatic: 1, maintainability_index: 90 },
        issues: [
          {
            rule_id: 'security/sql-injection',
            category: 'security',
            severity: 'critical',
            message: 'SQL injection',
            line: 3,
            cwe: 'CWE-89',
            trace: [
              { line: 1, column: 8, end_line: 1, end_column: 32, note: 'source: request.args.get("name")' },
              { line: 2, column: 1, end_line: 2, end_column: 25, note: 'query = …' },
              { line: 3, column: 1, end_line: 3, end_column: 19, note: 'sink: cur.execute' },
            ],
          },
          {
            rule_id: 'security/weak-hash',
            category: 'security',
            severity: 'medium',
            message: 'MD5',
            line: 3,
            cwe: null,
          },
        ],
      });
    });
    await user.click(screen.getByRole('tab', { name: 'Code analysis' }));
    await user.clear(screen.getByLabelText('Code'));
    await user.type(screen.getByLabelText('Code'), code.replaceAll('{', '{{').replaceAll('[', '[['));
    await user.click(screen.getByRole('button', { name: 'Analyse' }));
    const trace = await screen.findByRole('list', { name: /Trace of security\/sql-injection on line 3/ });
    const steps = within(trace)
      .getAllByRole('listitem')
      .map((li) => li.textContent);
    expect(steps).toEqual([
      'line 1 source: request.args.get("name")name = request.args.get("name")',
      'line 2 query = …query = "SELECT " + name',
      'line 3 sink: cur.executecur.execute(query)',
    ]);
    expect(screen.getAllByRole('list', { name: /^Trace of/ })).toHaveLength(1);
  });
});
