import { useState } from 'react';
import { AnalyzePanel } from '../components/playground/AnalyzePanel';
import { ChatPanel } from '../components/playground/ChatPanel';
import { Link } from '../lib/router';

type Tab = 'chat' | 'analyze';

export function PlaygroundPage() {
  const [apiKey, setApiKey] = useState('');
  const [tab, setTab] = useState<Tab>('chat');
  const looksLikeKey = /^sk_(live|test)_\S+$/.test(apiKey.trim());
  return (
    <section aria-labelledby="pg-title">
      <h1 id="pg-title">Playground</h1>
      <p className="lede">
        Try the API from this page. Paste one of your keys (a <Link to="/keys">test key</Link> is free and
        answers from the simulator): it stays in this tab's memory and is never stored; calls are metered like
        any other.
      </p>
      <div className="card">
        <div className="field">
          <label htmlFor="pg-key">API key</label>
          <input
            id="pg-key"
            type="password"
            autoComplete="off"
            spellCheck={false}
            value={apiKey}
            placeholder="sk_test_…"
            onChange={(e) => setApiKey(e.target.value)}
            aria-describedby="pg-key-hint"
          />
          <p id="pg-key-hint" className="hint">
            {apiKey && !looksLikeKey
              ? 'Keys start with sk_test_ or sk_live_.'
              : 'Live keys use your token allowance.'}
          </p>
        </div>
      </div>
      <div className="tabs" role="tablist" aria-label="Playground tools">
        {(
          [
            ['chat', 'Chat'],
            ['analyze', 'Code analysis'],
          ] as const
        ).map(([id, label]) => (
          <button
            key={id}
            type="button"
            role="tab"
            id={`tab-${id}`}
            aria-selected={tab === id}
            aria-controls={`panel-${id}`}
            className="tab"
            tabIndex={tab === id ? 0 : -1}
            onClick={() => setTab(id)}
            onKeyDown={(e) => {
              // The ARIA tabs pattern: arrows move between tabs, Tab moves into the panel.
              if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight') return;
              const next = id === 'chat' ? 'analyze' : 'chat';
              setTab(next);
              document.getElementById(`tab-${next}`)?.focus();
            }}
          >
            {label}
          </button>
        ))}
      </div>
      <div className="card" role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`}>
        {tab === 'chat' ? <ChatPanel apiKey={apiKey.trim()} /> : <AnalyzePanel apiKey={apiKey.trim()} />}
      </div>
    </section>
  );
}
