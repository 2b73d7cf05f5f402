import type { ChatCompletion } from '@tessera/shared';
import { countingThread, countTokens } from '../tokenizer';
import { completeChat } from './complete';
import type { ChatCall, ChatDeps } from './deps';
import { type PreparedChat, prepareChat } from './prepare';
import { type ChatSink, streamChat } from './stream';

/** The chat completions feature: checks a request, then answers it whole or as a stream. */
export class ChatService {
  private readonly stopListening: () => void;

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

  /** Stops logging for the process's counting thread (the services' stop). */
  close(): void {
    this.stopListening();
  }

  /**
   * Validation, model lookup, token count and context check: every 4xx that needs no model call. A promise only
   * for a long prompt, counted off the event loop, where `accountId`'s prompts take turns with other accounts'.
   */
  prepare(body: unknown, accountId?: string): PreparedChat | Promise<PreparedChat> {
    return prepareChat({ catalogue: this.deps.catalogue, body, accountId });
  }

  complete(call: ChatCall): Promise<ChatCompletion> {
    return completeChat(this.deps, call);
  }

  stream(call: ChatCall, sink: ChatSink): Promise<void> {
    return streamChat(this.deps, call, sink);
  }
}
