import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { type Caller, callApi } from '../../lib/api';
import type { PlaygroundChatRequest } from '../../lib/request-code';
import { chatEvents } from '../../lib/sse';
import { useTRPC } from '../../lib/trpc';
import { ChatSettings, type ChatSettingsDraft, checkSettings, EMPTY_SETTINGS } from './ChatSettings';
import { type ReplyFacts, ReplyMeta } from './ReplyMeta';

interface Turn {
  role: 'user' | 'assistant';
  content: string;
  /** An answer's facts, once its stream has started. */
  facts?: ReplyFacts;
}

/** The origin the code to copy calls: this server, which serves the API beside the dashboard. */
const apiBase = () => window.location.origin;

/**
 * A chat with a chosen model, streamed token by token; Stop aborts the request. Enter sends, Shift+Enter breaks the
 * line. Each answer shows its usage, its latency and who answered, and the request as curl and SDK code.
 */
export function ChatPanel({ caller }: { caller: Caller | null }) {
  const trpc = useTRPC();
  const models = useQuery(trpc.models.list.queryOptions(undefined, { staleTime: 5 * 60_000 }));
  const [draft, setDraft] = useState<ChatSettingsDraft>(EMPTY_SETTINGS);
  const [turns, setTurns] = useState<Turn[]>([]);
  const [input, setInput] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [streaming, setStreaming] = useState(false);
  const abort = useRef<AbortController | null>(null);
  const inputRef = useRef<HTMLTextAreaElement>(null);
  // The playground chats: embedding models are listed on the models page, not offered here.
  const list = models.data?.data.filter((m) => m.type === 'chat');
  const chosen = list?.find((m) => m.id === draft.model) ?? list?.[0];
  const { value: settings, errors } = checkSettings(draft, chosen);
  const settingsValid = Object.keys(errors).length === 0;

  // The Send and Stop buttons swap places as a reply starts and ends, and Send is disabled while the box is empty:
  // focus on a button that left, or that is disabled (Chromium then drops it), would fall to the page's body, so
  // it goes back to the message box, where the next message is typed.
  // Only when a reply ends: on arrival the page's own focus (the route's heading) is left alone.
  const replying = useRef(false);
  useEffect(() => {
    if (streaming || !replying.current) {
      replying.current = streaming;
      return;
    }
    replying.current = false;
    const active = document.activeElement;
    if (
      active === null ||
      active === document.body ||
      (active instanceof HTMLButtonElement && active.disabled)
    )
      inputRef.current?.focus();
  }, [streaming]);

  // The newest words stay in view as they stream in, in the transcript's own scroller.
  const transcriptRef = useRef<HTMLOListElement>(null);
  useEffect(() => {
    const list = transcriptRef.current;
    if (list && turns.length > 0) list.scrollTop = list.scrollHeight;
  }, [turns]);

  const updateLast = (update: (turn: Turn) => Turn) =>
    setTurns((t) => t.map((turn, i) => (i === t.length - 1 ? update(turn) : turn)));

  const send = async (e?: FormEvent) => {
    e?.preventDefault();
    const text = input.trim();
    if (!text || !caller || !chosen || !settingsValid || streaming) return;
    // An answer that failed before its first word is not part of the conversation the model sees.
    const kept: Turn[] = [...turns.filter((t) => t.content !== ''), { role: 'user', content: text }];
    const history = kept.map(({ role, content }) => ({ role, content }));
    const request: PlaygroundChatRequest = {
      model: chosen.id,
      messages: settings.system ? [{ role: 'system', content: settings.system }, ...history] : history,
      ...(settings.temperature !== undefined && { temperature: settings.temperature }),
      ...(settings.max_tokens !== undefined && { max_tokens: settings.max_tokens }),
      stream: true,
      stream_options: { include_usage: true },
    };
    const facts: ReplyFacts = {
      request,
      provider: null,
      fingerprint: null,
      usage: null,
      firstTokenMs: null,
      totalMs: null,
      stopped: false,
    };
    setTurns([...kept, { role: 'assistant', content: '' }]);
    setInput('');
    setError(null);
    setStreaming(true);
    inputRef.current?.focus();
    const controller = new AbortController();
    abort.current = controller;
    const started = performance.now();
    let answered = false;
    try {
      const res = await callApi(caller, '/v1/chat/completions', request, controller.signal);
      answered = true;
      facts.provider = res.headers.get('x-tessera-provider');
      if (!res.body) throw new Error('The response had no body.');
      for await (const event of chatEvents(res.body)) {
        if (event.fingerprint !== undefined) facts.fingerprint = event.fingerprint;
        if (event.usage) facts.usage = event.usage;
        const piece = event.content;
        if (piece && facts.firstTokenMs === null) facts.firstTokenMs = performance.now() - started;
        updateLast((turn) => ({ ...turn, content: turn.content + (piece ?? ''), facts: { ...facts } }));
      }
    } catch (err) {
      if (!controller.signal.aborted) setError(err instanceof Error ? err.message : 'The request failed.');
    } finally {
      facts.totalMs = performance.now() - started;
      facts.stopped = controller.signal.aborted;
      // A reply that never started (refused, failed) shows no facts: its error says what happened.
      if (answered) updateLast((turn) => ({ ...turn, facts: { ...facts } }));
      setStreaming(false);
      abort.current = null;
    }
  };

  return (
    <div className="playground-chat">
      <ChatSettings draft={draft} onChange={setDraft} models={list} chosen={chosen} errors={errors} />
      <ol ref={transcriptRef} className="transcript" aria-live="polite" aria-label="Conversation">
        {turns.length === 0 && <li className="muted">Send a message to start.</li>}
        {turns.map((t, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: turns are append-only
          <li key={i} className={`turn turn-${t.role}`}>
            <span className="turn-role">
              {t.role === 'user' ? 'You' : (t.facts?.request.model ?? chosen?.id)}
            </span>
            <p data-testid={t.role === 'assistant' ? 'assistant-reply' : undefined}>
              {t.content || (streaming && i === turns.length - 1 ? '…' : '')}
            </p>
            {t.facts && !(streaming && i === turns.length - 1) && (
              <ReplyMeta facts={t.facts} apiBase={apiBase()} />
            )}
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
          ref={inputRef}
          rows={3}
          value={input}
          placeholder={
            caller ? 'Ask something… (Enter sends, Shift+Enter for a new line)' : 'Paste a key above first'
          }
          aria-describedby="pg-message-hint"
          onChange={(e) => setInput(e.target.value)}
          onKeyDown={(e) => {
            // Enter sends; Shift+Enter keeps the browser's new line; Enter that ends an IME composition does neither.
            if (e.key !== 'Enter' || e.shiftKey || e.nativeEvent.isComposing) return;
            e.preventDefault();
            void send();
          }}
        />
        <p id="pg-message-hint" className="sr-only">
          Enter sends the message; Shift+Enter starts a new line.
        </p>
        <div className="composer-actions">
          {streaming ? (
            <button key="stop" type="button" className="btn" onClick={() => abort.current?.abort()}>
              Stop
            </button>
          ) : (
            <button
              key="send"
              type="submit"
              className="btn btn-primary"
              disabled={!caller || !input.trim() || !settingsValid}
            >
              Send
            </button>
          )}
          {turns.length > 0 && !streaming && (
            <button
              type="button"
              className="btn btn-ghost"
              onClick={() => {
                setTurns([]);
                inputRef.current?.focus();
              }}
            >
              Clear
            </button>
          )}
        </div>
      </form>
    </div>
  );
}
