import type {
  ChatCompletionChunk,
  FinishReason,
  OutputFunctionCall,
  OutputItem,
  OutputMessage,
  OutputReasoning,
  ResponseObject,
  ResponseUsage,
} from '@tessera/shared';
import type { ChatSink } from '../chat';
import { callId, finish, itemId, responseUsage } from './envelope';

/** An error as the transport answers it (OpenAI's error body's `error`), recorded for the usage event. */
export interface StreamFailure {
  message: string;
  type: string;
  param: string | null;
  code: string | null;
}

/** Where a response's events go: Server-Sent Events with `event:` names, on the client's response. */
export interface ResponseEventSink {
  /** The status and headers, once the provider has accepted the call. */
  open(): void;
  /** One event: its type (the `event:` line) and its JSON text. */
  event(type: string, json: string): void;
  ready(): Promise<void> | undefined;
  comment(text: string): void;
  /** How the transport answers this failure (and records it); the stream says it in its events. */
  failure(err: unknown): StreamFailure;
  /** The end of the response. */
  end(): void;
}

/** `response.failed`'s `error.code` is one of OpenAI's codes: the specific code goes in the `error` event. */
export function responseErrorCode(failure: StreamFailure): string {
  return failure.code === 'rate_limit_exceeded' || failure.type === 'rate_limit_error'
    ? 'rate_limit_exceeded'
    : 'server_error';
}

type Part = { kind: 'text' | 'refusal'; index: number; text: string };

/**
 * Turns the chat service's chunks into the Responses API's semantic events, each numbered (`sequence_number`):
 * `response.created` and `response.in_progress` when the stream opens; an output item per kind of output as it
 * starts (reasoning, the message with its text and refusal parts, each function call), its deltas, and its
 * `…done` events when the next item starts or the answer ends; then `response.completed` (or
 * `response.incomplete` at the cap) with the whole output and the usage. A failure after the stream opened is an
 * `error` event and `response.failed`. It is the chat stream's sink, so every provider, the retries, the
 * deadlines, backpressure and metering are the chat service's own.
 */
export class ResponseStream implements ChatSink {
  private sequence = 0;
  private readonly output: OutputItem[] = [];
  /** The item receiving deltas; `tool:<index>` for the chat tool call of that index. */
  private current: { key: string; index: number } | undefined;
  private readonly toolItems = new Map<number, number>();
  private part: Part | undefined;
  private finishReason: FinishReason | null = null;
  private usage: ResponseUsage | undefined;
  private model: string;
  private failed = false;

  constructor(
    private response: ResponseObject,
    private readonly sink: ResponseEventSink,
    private readonly now: () => number,
  ) {
    this.model = response.model;
  }

  private emit(type: string, fields: Record<string, unknown>): void {
    fields.sequence_number = this.sequence++;
    this.sink.event(type, JSON.stringify({ type, ...fields }));
  }

  private snapshot(status: ResponseObject['status']): ResponseObject {
    return { ...this.response, status, output: structuredClone(this.output) };
  }

  open(): void {
    this.sink.open();
    this.emit('response.created', { response: this.snapshot('in_progress') });
    this.emit('response.in_progress', { response: this.snapshot('in_progress') });
  }

  send(json: string): void {
    const chunk = JSON.parse(json) as ChatCompletionChunk;
    this.model = chunk.model;
    if (chunk.usage) this.usage = responseUsage(chunk.usage);
    const choice = chunk.choices.find((c) => c.index === 0);
    if (!choice) return;
    const { delta } = choice;
    if (delta.reasoning_content) this.reasoningDelta(delta.reasoning_content);
    if (delta.content) this.messageDelta('text', delta.content);
    if (delta.refusal) this.messageDelta('refusal', delta.refusal);
    for (const call of delta.tool_calls ?? []) this.toolDelta(call);
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
  }

  /** Makes `key` the item receiving deltas: the one open before it is closed, a new one is added. */
  private switchTo(key: string, make: () => OutputItem): number {
    if (this.current?.key === key) return this.current.index;
    this.closeCurrent('completed');
    const item = make();
    const index = this.output.push(item) - 1;
    this.current = { key, index };
    this.emit('response.output_item.added', { output_index: index, item: structuredClone(item) });
    return index;
  }

  private reasoningDelta(text: string): void {
    const index = this.switchTo('reasoning', () => ({
      id: itemId('rs'),
      type: 'reasoning',
      status: 'in_progress',
      summary: [],
      content: [],
    }));
    const item = this.output[index] as OutputReasoning;
    let part = item.content[0];
    if (!part) {
      part = { type: 'reasoning_text', text: '' };
      item.content.push(part);
      this.emit('response.content_part.added', {
        item_id: item.id,
        output_index: index,
        content_index: 0,
        part: { type: 'reasoning_text', text: '' },
      });
    }
    part.text += text;
    this.emit('response.reasoning_text.delta', {
      item_id: item.id,
      output_index: index,
      content_index: 0,
      delta: text,
    });
  }

  private messageDelta(kind: Part['kind'], text: string): void {
    const index = this.switchTo('message', () => ({
      id: itemId('msg'),
      type: 'message',
      status: 'in_progress',
      role: 'assistant',
      content: [],
    }));
    const item = this.output[index] as OutputMessage;
    if (this.part?.kind !== kind) {
      this.closePart(item, index);
      const empty =
        kind === 'text'
          ? { type: 'output_text' as const, text: '', annotations: [], logprobs: [] }
          : { type: 'refusal' as const, refusal: '' };
      this.part = { kind, index: item.content.push(structuredClone(empty)) - 1, text: '' };
      this.emit('response.content_part.added', {
        item_id: item.id,
        output_index: index,
        content_index: this.part.index,
        part: empty,
      });
    }
    this.part.text += text;
    const where = { item_id: item.id, output_index: index, content_index: this.part.index };
    if (kind === 'text') this.emit('response.output_text.delta', { ...where, delta: text, logprobs: [] });
    else this.emit('response.refusal.delta', { ...where, delta: text });
  }

  private toolDelta(call: {
    index: number;
    id?: unknown;
    function?: { name?: unknown; arguments?: unknown };
  }): void {
    const known = this.toolItems.get(call.index);
    const index =
      known ??
      this.switchTo(`tool:${call.index}`, () => ({
        id: itemId('fc'),
        type: 'function_call',
        status: 'in_progress',
        call_id: typeof call.id === 'string' ? call.id : callId(),
        name: typeof call.function?.name === 'string' ? call.function.name : '',
        arguments: '',
      }));
    this.toolItems.set(call.index, index);
    const item = this.output[index] as OutputFunctionCall;
    const piece = call.function?.arguments;
    if (typeof piece !== 'string' || piece === '') return;
    item.arguments += piece;
    this.emit('response.function_call_arguments.delta', {
      item_id: item.id,
      output_index: index,
      delta: piece,
    });
  }

  /** The `…done` events of the message's open content part. */
  private closePart(item: OutputMessage, index: number): void {
    const part = this.part;
    if (!part) return;
    this.part = undefined;
    const where = { item_id: item.id, output_index: index, content_index: part.index };
    const whole =
      part.kind === 'text'
        ? { type: 'output_text' as const, text: part.text, annotations: [], logprobs: [] }
        : { type: 'refusal' as const, refusal: part.text };
    item.content[part.index] = whole;
    if (part.kind === 'text')
      this.emit('response.output_text.done', { ...where, text: part.text, logprobs: [] });
    else this.emit('response.refusal.done', { ...where, refusal: part.text });
    this.emit('response.content_part.done', { ...where, part: whole });
  }

  /** The `…done` events of the item receiving deltas, which ends with `status`. */
  private closeCurrent(status: OutputItem['status']): void {
    const current = this.current;
    if (!current) return;
    this.current = undefined;
    const { index } = current;
    const item = this.output[index] as OutputItem;
    if (item.type === 'message') this.closePart(item, index);
    else if (item.type === 'reasoning') {
      const text = item.content[0]?.text ?? '';
      const where = { item_id: item.id, output_index: index, content_index: 0 };
      this.emit('response.reasoning_text.done', { ...where, text });
      this.emit('response.content_part.done', { ...where, part: { type: 'reasoning_text', text } });
    } else
      this.emit('response.function_call_arguments.done', {
        item_id: item.id,
        output_index: index,
        name: item.name,
        arguments: item.arguments,
      });
    item.status = status;
    this.emit('response.output_item.done', { output_index: index, item: structuredClone(item) });
  }

  done(): void {
    if (this.failed) {
      this.sink.end();
      return;
    }
    const usage = this.usage ?? responseUsage({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
    const finished = finish(
      { ...this.response, model: this.model },
      this.finishReason,
      this.output,
      usage,
      Math.floor(this.now() / 1000),
    );
    this.closeCurrent(finished.status === 'incomplete' ? 'incomplete' : 'completed');
    this.response = { ...finished, output: this.output };
    const type = finished.status === 'incomplete' ? 'response.incomplete' : 'response.completed';
    this.emit(type, { response: this.response });
    this.sink.end();
  }

  error(err: unknown): void {
    const failure = this.sink.failure(err);
    this.failed = true;
    this.emit('error', { code: failure.code, message: failure.message, param: failure.param });
    // The open part's text so far (its item holds it only once the part is done).
    const current = this.current && this.output[this.current.index];
    if (current?.type === 'message' && this.part) {
      const { kind, index, text } = this.part;
      current.content[index] =
        kind === 'text'
          ? { type: 'output_text', text, annotations: [], logprobs: [] }
          : { type: 'refusal', refusal: text };
    }
    for (const item of this.output) if (item.status === 'in_progress') item.status = 'incomplete';
    this.emit('response.failed', {
      response: {
        ...this.response,
        model: this.model,
        status: 'failed',
        error: { code: responseErrorCode(failure), message: failure.message },
        output: this.output,
      },
    });
  }

  ready(): Promise<void> | undefined {
    return this.sink.ready();
  }

  comment(text: string): void {
    this.sink.comment(text);
  }

  end(): void {
    this.sink.end();
  }
}
