import type { ChatCompletion } from '@tessera/shared';
import { ServiceError } from '../../errors';
import type { Principal } from '../keys';
import { countingThread, countTokens } from '../tokenizer';
import { completeChat } from './complete';
import { SHUTTING_DOWN } from './deadline';
import type { CallAbort, ChatCall, ChatDeps } from './deps';
import type { ChatOutcome } from './meter';
import { type PreparedChat, prepareChat } from './prepare';
import { type ChatSink, streamChat } from './stream';

/** The chat completions feature: checks a request, then answers it whole or as a stream. */
export class ChatService {
  private readonly stopListening: () => void;
  /** The calls under way, for `endAll` at shutdown. */
  private readonly running = new Set<CallAbort>();

  constructor(private readonly deps: ChatDeps) {
    // Building the BPE takes about half a second: do it at start-up, not on the first request.
    countTokens('warm up');
    this.stopListening = countingThread.onLost((err) =>
      deps.logger.warn(
        { err },
        'the token counting thread stopped; long prompts are counted on the event loop',
      ),
    );
  }

  /** What the service calls with: the Responses API's native relay shares it (modules/responses/relay.ts). */
  get dependencies(): ChatDeps {
    return this.deps;
  }

  /** Runs a call of another shape (the Responses relay) as one of this service's, so that `endAll` ends it. */
  async track<T>(abort: CallAbort, work: () => Promise<T>): Promise<T> {
    this.running.add(abort);
    try {
      return await work();
    } finally {
      this.running.delete(abort);
    }
  }

  /** Stops logging for the process's counting thread (the services' stop). */
  close(): void {
    this.stopListening();
  }

  /**
   * Validation, model lookup, the key's access to the model, token count and context check: every 4xx that needs
   * no model call. A long prompt is counted off the event loop, where the principal's account's prompts take
   * turns with other accounts'.
   */
  prepare(body: unknown, principal: Principal): Promise<PreparedChat> {
    return prepareChat({ catalogue: this.deps.catalogue, body, principal });
  }

  async complete(call: ChatCall): Promise<ChatOutcome<ChatCompletion>> {
    this.running.add(call.abort);
    try {
      return await completeChat(this.deps, call);
    } finally {
      this.running.delete(call.abort);
    }
  }

  async stream(call: ChatCall, sink: ChatSink): Promise<ChatOutcome<void>> {
    this.running.add(call.abort);
    try {
      return await streamChat(this.deps, call, sink);
    } finally {
      this.running.delete(call.abort);
    }
  }

  /**
   * Ends every call under way because the server is stopping (its grace period is over): a stream ends with
   * an error event in OpenAI's body and `[DONE]`, a call not yet answered gets a 503 to retry elsewhere.
   * Their tokens so far are metered. Returns how many calls were ended.
   */
  endAll(): number {
    const calls = [...this.running];
    for (const abort of calls) abort.abort(shuttingDown());
    return calls.length;
  }
}

/** Why a call was ended, or a request refused, at shutdown (CallDeadline recognises it by its code). */
export function shuttingDown(): ServiceError {
  return new ServiceError(
    'unavailable',
    'The server is shutting down; the request was not completed. Please retry.',
    { code: SHUTTING_DOWN, retryable: true, retryAfterMs: 1_000 },
  );
}
