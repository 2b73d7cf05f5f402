import { useState } from 'react';
import { AnalyzePanel } from '../components/playground/AnalyzePanel';
import { ChatPanel } from '../components/playground/ChatPanel';
import type { Caller } from '../lib/api';
import { useRole } from '../lib/role';
import { Link } from '../lib/router';

type Tab = 'chat' | 'analyze';

export function PlaygroundPage() {
  const role = useRole();
  // A viewer's session may not call the playground (the server refuses it): only a pasted key can.
  const sessionAllowed = role.can('playground.use');
  const [runAs, setRunAs] = useState<'session' | 'key'>(sessionAllowed ? 'session' : 'key');
  const [apiKey, setApiKey] = useState('');
  const [tab, setTab] = useState<Tab>('chat');
  const key = apiKey.trim();
  const looksLikeKey = /^sk_(live|test)_\S+$/.test(key);
  const caller: Caller | null = runAs === 'session' ? { kind: 'session' } : key ? { kind: 'key', key } : null;
  return (
    <section aria-labelledby="pg-title">
      <h1 id="pg-title">Playground</h1>
      <p className="lede">
        Try a model or the code analysis from this page. Calls are metered like any other and show up in the
        overview.
      </p>
      <div className="card">
        <fieldset className="segmented">
          <legend>Run as</legend>
          <label>
            <input
              type="radio"
              name="run-as"
              checked={runAs === 'session'}
              disabled={!sessionAllowed}
              aria-describedby={sessionAllowed ? undefined : 'pg-session-refused'}
              onChange={() => setRunAs('session')}
            />
            Your account in test mode (no key needed, free)
          </label>
          {!sessionAllowed && (
            <p id="pg-session-refused" className="hint">
              {role.reason('playground.use')}
            </p>
          )}
          <label>
            <input type="radio" name="run-as" checked={runAs === 'key'} onChange={() => setRunAs('key')} />
            An API key you paste
          </label>
        </fieldset>
        {runAs === 'key' && (
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
              {key && !looksLikeKey
                ? 'Keys start with sk_test_ or sk_live_.'
                : 'Kept in this tab only, never stored. Live keys use your token allowance.'}{' '}
              <Link to="/keys">Manage keys</Link>
            </p>
          </div>
        )}
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
        {tab === 'chat' ? <ChatPanel caller={caller} /> : <AnalyzePanel caller={caller} />}
      </div>
    </section>
  );
}
