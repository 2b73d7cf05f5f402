import type { ResponseObject, ResponseRequest } from '@tessera/shared';
import { ServiceError } from '../../errors';
import type { Clock } from '../../lib/clock';
import {
  type ChatCall,
  type ChatOutcome,
  type ChatService,
  type PreparedChat,
  speaksResponses,
} from '../chat';
import type { Principal } from '../keys';
import { responseId, responseShell } from './envelope';
import { responseOf } from './from-chat';
import { relayResponse, relayResponseStream } from './relay';
import { type ResponseEventSink, ResponseStream } from './stream';
import { chatRequest } from './to-chat';
import { parseResponseRequest } from './validate';

/** A Responses request that passed every check that needs no model call, with the chat call that answers it. */
export interface PreparedResponse {
  request: ResponseRequest;
  chat: PreparedChat;
  /** The response before any output (in progress), with its id and creation time. */
  shell: ResponseObject;
  /**
   * The client's body as validated, when the model's upstreams speak the Responses API and the call is relayed
   * to them (relay.ts); undefined when it is translated to chat completions (test keys always are).
   */
  relayed: Record<string, unknown> | undefined;
}

/** Chat's parameter names where the Responses API has its own. */
const PARAMS: Record<string, string> = {
  max_completion_tokens: 'max_output_tokens',
  max_tokens: 'max_output_tokens',
  response_format: 'text.format',
  messages: 'input',
};

/**
 * A refusal of the translated chat request, in the Responses request's terms: `param` names the Responses
 * parameter (`max_output_tokens`, not `max_completion_tokens`; `input` for a message), and so does the message.
 */
function inResponseTerms(err: unknown): unknown {
  if (!(err instanceof ServiceError) || err.param === null) return err;
  const root = /^[a-z_]+/.exec(err.param)?.[0] ?? '';
  const renamed = PARAMS[root];
  if (renamed === undefined) return err;
  const param = root === 'messages' ? 'input' : renamed + err.param.slice(root.length);
  return new ServiceError(err.kind, err.message.replaceAll(root, renamed), {
    param,
    code: err.code,
    ...(err.type !== undefined && { type: err.type }),
    ...(err.retryable !== undefined && { retryable: err.retryable }),
    headers: err.headers,
    cause: err,
  });
}

/**
 * `POST /v1/responses` answered by the chat service: the request is translated to a chat completion request,
 * which the chat service prepares, meters, limits, reserves and sends to its provider exactly as a chat call, and
 * its answer (or stream) is translated back (README.md).
 */
export class ResponsesService {
  constructor(
    private readonly chat: ChatService,
    private readonly clock: Clock,
  ) {}

  async prepare(body: unknown, principal: Principal): Promise<PreparedResponse> {
    const request = await parseResponseRequest(body);
    let chat: PreparedChat;
    try {
      chat = await this.chat.prepare(chatRequest(request), principal);
    } catch (err) {
      throw inResponseTerms(err);
    }
    const createdAt = Math.floor(this.clock.now() / 1000);
    const relayed = speaksResponses(chat.entry, principal, this.chat.dependencies.providers)
      ? (body as Record<string, unknown>)
      : undefined;
    return { request, chat, shell: responseShell(request, responseId(), createdAt, chat.entry.id), relayed };
  }

  /** The whole response, once the model has answered: the upstream's own, or translated from chat. */
  async create(
    prepared: PreparedResponse,
    call: ChatCall,
  ): Promise<ChatOutcome<ResponseObject | Record<string, unknown>>> {
    if (prepared.relayed) return relayResponse(this.chat, call, prepared.relayed);
    const ended = await this.chat.complete(call);
    if (!ended.ok) return ended;
    return { ok: true, value: responseOf(prepared.shell, ended.value), usage: ended.usage };
  }

  /** The response as Server-Sent Events; failures after the stream opened are its `error` and `response.failed` events. */
  stream(prepared: PreparedResponse, call: ChatCall, sink: ResponseEventSink): Promise<ChatOutcome<void>> {
    if (prepared.relayed) return relayResponseStream(this.chat, call, prepared.relayed, sink);
    return this.chat.stream(call, new ResponseStream(prepared.shell, sink, () => this.clock.now()));
  }
}
