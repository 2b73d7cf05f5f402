import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useRef, useState } from 'react';
import { type Caller, callApi } from '../../lib/api';
import { chatDeltas } from '../../lib/sse';
import { useTRPC } from '../../lib/trpc';

interface Turn {
  role: 'user' | 'assistant';
  content: string;
}

/** A chat with a chosen model, streamed token by token; Stop aborts the request. */
export function ChatPanel({ caller }: { caller: Caller | null }) {
  const trpc = useTRPC();
  const models = useQuery(trpc.models.list.queryOptions(undefined, { staleTime: 5 * 60_000 }));
  const [model, setModel] = useState('');
  const [turns, setTurns] = useState<Turn[]>([]);
  const [input, setInput] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [streaming, setStreaming] = useState(false);
  const abort = useRef<AbortController | null>(null);
  const chosen = model || models.data?.data[0]?.id || '';

  const send = async (e: FormEvent) => {
    e.preventDefault();
    const text = input.trim();
    if (!text || !caller || !chosen) return;
    const history: Turn[] = [...turns, { role: 'user', content: text }];
    setTurns([...history, { role: 'assistant', content: '' }]);
    setInput('');
    setError(null);
    setStreaming(true);
    const controller = new AbortController();
    abort.current = controller;
    try {
      const res = await callApi(
        caller,
        '/v1/chat/completions',
        { model: chosen, messages: history, stream: true },
        controller.signal,
      );
      if (!res.body) throw new Error('The response had no body.');
      for await (const piece of chatDeltas(res.body)) {
        setTurns((t) =>
          t.map((turn, i) => (i === t.length - 1 ? { ...turn, content: turn.content + piece } : turn)),
        );
      }
    } catch (err) {
      if (!controller.signal.aborted) setError(err instanceof Error ? err.message : 'The request failed.');
    } finally {
      setStreaming(false);
      abort.current = null;
    }
  };

  return (
    <div className="playground-chat">
      <div className="field">
        <label htmlFor="pg-model">Model</label>
        <select
          id="pg-model"
          value={chosen}
          onChange={(e) => setModel(e.target.value)}
          disabled={!models.data}
        >
          {models.data?.data.map((m) => (
            <option key={m.id} value={m.id}>
              {m.id}
            </option>
          ))}
        </select>
      </div>
      <ol className="transcript" aria-live="polite" aria-label="Conversation">
        {turns.length === 0 && <li className="muted">Send a message to start.</li>}
        {turns.map((t, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: turns are append-only
          <li key={i} className={`turn turn-${t.role}`}>
            <span className="turn-role">{t.role === 'user' ? 'You' : chosen}</span>
            <p data-testid={t.role === 'assistant' ? 'assistant-reply' : undefined}>
              {t.content || (streaming && i === turns.length - 1 ? '…' : '')}
            </p>
          </li>
        ))}
      </ol>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <form onSubmit={send} className="composer">
        <label htmlFor="pg-message" className="sr-only">
          Message
        </label>
        <textarea
          id="pg-message"
          rows={3}
          value={input}
          placeholder={caller ? 'Ask something…' : 'Paste a key above first'}
          onChange={(e) => setInput(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && (e.metaKey || e.ctrlKey)) e.currentTarget.form?.requestSubmit();
          }}
        />
        <div className="composer-actions">
          {streaming ? (
            <button type="button" className="btn" onClick={() => abort.current?.abort()}>
              Stop
            </button>
          ) : (
            <button type="submit" className="btn btn-primary" disabled={!caller || !input.trim()}>
              Send
            </button>
          )}
          {turns.length > 0 && !streaming && (
            <button type="button" className="btn btn-ghost" onClick={() => setTurns([])}>
              Clear
            </button>
          )}
        </div>
      </form>
    </div>
  );
}
