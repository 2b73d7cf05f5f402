import { curlCode, KEY_VARIABLE, openaiNodeCode, type PlaygroundChatRequest } from '../../lib/request-code';
import type { StreamUsage } from '../../lib/sse';
import { CopyButton } from '../CopyButton';

/** What the playground learnt about one answer while it streamed. */
export interface ReplyFacts {
  request: PlaygroundChatRequest;
  /** From `x-tessera-provider`: `simulator`, or the upstream that answered. */
  provider: string | null;
  fingerprint: string | null;
  usage: StreamUsage | null;
  /** Milliseconds from sending to the first text, and to the end of the stream. */
  firstTokenMs: number | null;
  totalMs: number | null;
  stopped: boolean;
}

function duration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

/** An answer's usage, latency and who answered, and the same request as code to copy. */
export function ReplyMeta({ facts, apiBase }: { facts: ReplyFacts; apiBase: string }) {
  const curl = curlCode(facts.request, apiBase);
  const node = openaiNodeCode(facts.request, apiBase);
  return (
    <div className="reply-meta">
      <p className="reply-stats">
        {facts.usage ? (
          <span data-testid="reply-usage">
            {facts.usage.prompt_tokens.toLocaleString('en-US')} prompt +{' '}
            {facts.usage.completion_tokens.toLocaleString('en-US')} completion tokens
          </span>
        ) : (
          <span>{facts.stopped ? 'Stopped: usage not reported' : 'No usage reported'}</span>
        )}
        {facts.totalMs !== null && (
          <span data-testid="reply-latency">
            {duration(facts.totalMs)}
            {facts.firstTokenMs !== null && ` (first token ${duration(facts.firstTokenMs)})`}
          </span>
        )}
        {facts.provider && (
          <span data-testid="reply-provider" title={facts.fingerprint ?? undefined}>
            {facts.provider === 'simulator' ? 'Simulated' : `Answered by ${facts.provider}`}
            {facts.fingerprint && ` · ${facts.fingerprint}`}
          </span>
        )}
      </p>
      <div className="reply-code">
        <CopyButton text={curl} label="Copy as curl" />
        <CopyButton text={node} label="Copy as openai SDK (Node)" />
        <details>
          <summary>Show code</summary>
          <p className="hint">
            Set <code>{KEY_VARIABLE}</code> to one of your keys: a test key gets the same simulated answers as
            this page.
          </p>
          <figure>
            <figcaption>curl</figcaption>
            <pre className="code-block">
              <code>{curl}</code>
            </pre>
          </figure>
          <figure>
            <figcaption>openai SDK (Node)</figcaption>
            <pre className="code-block">
              <code>{node}</code>
            </pre>
          </figure>
        </details>
      </div>
    </div>
  );
}
