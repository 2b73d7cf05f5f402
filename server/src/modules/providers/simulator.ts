import { setTimeout as sleep } from 'node:timers/promises';
import type { AssistantMessage, ChatCompletionRequest, ChunkDelta, FinishReason } from '@tessera/shared';
import { contentText, encodeText } from '../tokenizer';
import { jsonValueFor, valueSourceFrom } from './simulator-json';
import { simulatedReply } from './simulator-text';
import {
  chosenTool,
  type FunctionTool,
  lastUserText,
  simulatedToolCall,
  trailingToolResults,
} from './simulator-tools';
import { tokenPieces } from './token-pieces';
import type { ChatProvider, ProviderCall, ProviderChunk, ProviderCompletion } from './types';

interface SimulatedChoice {
  /** The content's pieces, or the arguments' for a tool call. */
  pieces: string[];
  tokens: number;
  finish: FinishReason;
  /** Set when the choice is a tool call. */
  call?: { id: string; name: string };
}

function stopsOf(request: ChatCompletionRequest): string[] {
  const stop = request.stop;
  if (stop === null || stop === undefined) return [];
  return (typeof stop === 'string' ? [stop] : stop).filter((s) => s.length > 0);
}

/** JSON modes get JSON, so that clients parsing the answer work against the simulator too. */
function jsonAnswer(request: ChatCompletionRequest, reply: string, variant: string): string {
  const format = request.response_format as { type: string; json_schema?: { schema?: unknown } };
  const schema = format.type === 'json_schema' ? format.json_schema?.schema : undefined;
  if (typeof schema !== 'object' || schema === null || Object.keys(schema).length === 0) {
    return JSON.stringify({ answer: reply });
  }
  const prompt = request.messages.map((m) => contentText(m.content)).join('\n');
  return JSON.stringify(
    jsonValueFor(
      schema,
      valueSourceFrom(lastUserText(request), `${variant}\u0000${prompt}`),
      'response_format.json_schema.schema',
    ),
  );
}

/** A text choice: the reply cut at the first stop sequence, then at the completion cap. */
function simulateText(call: ProviderCall, variant: string): SimulatedChoice {
  const { request } = call;
  // After a tool's result the answer is about the result, as a model's would be.
  const prompt =
    trailingToolResults(request) ?? request.messages.map((m) => contentText(m.content)).join('\n');
  const reply = simulatedReply(prompt, variant);
  const json = request.response_format && request.response_format.type !== 'text';
  let text = json ? jsonAnswer(request, reply, variant) : reply;
  let finish: FinishReason = 'stop';
  const cut = Math.min(...stopsOf(request).map((s) => (text.includes(s) ? text.indexOf(s) : text.length)));
  if (cut < text.length) text = text.slice(0, cut);
  // Special tokens' spellings are plain text here, as in a prompt.
  let tokens = encodeText(text);
  if (tokens.length > call.maxTokens) {
    tokens = tokens.slice(0, call.maxTokens);
    finish = 'length';
  }
  return { pieces: tokenPieces(tokens), tokens: tokens.length, finish };
}

/**
 * A tool-call choice. The model's output is the function's name and its arguments: the count is theirs, and a cap
 * they exceed cuts the arguments (finish `length`, as OpenAI ends a call cut short).
 */
function simulateToolCall(call: ProviderCall, tool: FunctionTool, variant: string): SimulatedChoice {
  const { id, name, arguments: args } = simulatedToolCall(tool, call.request, variant);
  const nameTokens = encodeText(name).length;
  let tokens = encodeText(args);
  let finish: FinishReason = 'tool_calls';
  const room = Math.max(0, call.maxTokens - nameTokens);
  if (tokens.length > room) {
    tokens = tokens.slice(0, room);
    finish = 'length';
  }
  // A cap below the name's own length still gets the whole name, counted as the cap.
  const count = Math.min(call.maxTokens, nameTokens + tokens.length);
  return { pieces: tokenPieces(tokens), tokens: count, finish, call: { id, name } };
}

function simulate(call: ProviderCall): SimulatedChoice[] {
  const { request } = call;
  const tool = chosenTool(request);
  return Array.from({ length: request.n ?? 1 }, (_, i) => {
    const variant = `${call.upstreamModel}/${request.seed ?? ''}/${i}`;
    return tool ? simulateToolCall(call, tool, variant) : simulateText(call, variant);
  });
}

function messageOf(choice: SimulatedChoice): AssistantMessage {
  const text = choice.pieces.join('');
  if (!choice.call) return { role: 'assistant', content: text, refusal: null };
  const { id, name } = choice.call;
  return {
    role: 'assistant',
    content: null,
    refusal: null,
    tool_calls: [{ id, type: 'function', function: { name, arguments: text } }],
  };
}

/** A choice's first delta: the role, and for a tool call its id and name with the arguments still empty. */
function firstDelta(choice: SimulatedChoice): ChunkDelta {
  if (!choice.call) return { role: 'assistant', content: '', refusal: null };
  const { id, name } = choice.call;
  return {
    role: 'assistant',
    content: null,
    refusal: null,
    tool_calls: [{ index: 0, id, type: 'function', function: { name, arguments: '' } }],
  };
}

function pieceDelta(choice: SimulatedChoice, piece: string): ChunkDelta {
  return choice.call ? { tool_calls: [{ index: 0, function: { arguments: piece } }] } : { content: piece };
}

function usageOf(call: ProviderCall, choices: SimulatedChoice[]) {
  const completion = choices.reduce((sum, c) => sum + c.tokens, 0);
  return {
    prompt_tokens: call.promptTokens,
    completion_tokens: completion,
    total_tokens: call.promptTokens + completion,
  };
}

/**
 * The built-in simulator: offline, deterministic, no weights. Answers from the prompt's own words, streams one token
 * at a time every `tokenDelayMs`, honours `n`, `stop` and the completion cap, and reports true BPE counts. Calls
 * tools (simulator-tools.ts) and answers JSON schemas (simulator-json.ts) with values valid against their schemas.
 */
export class SimulatorProvider implements ChatProvider {
  readonly name = 'simulator';

  constructor(private readonly tokenDelayMs: number) {}

  async complete(call: ProviderCall): Promise<ProviderCompletion> {
    const choices = simulate(call);
    return {
      choices: choices.map((c, index) => ({
        index,
        message: messageOf(c),
        finish_reason: c.finish,
      })),
      usage: usageOf(call, choices),
    };
  }

  async stream(call: ProviderCall): Promise<AsyncIterable<ProviderChunk>> {
    return this.chunks(simulate(call), call);
  }

  private async *chunks(choices: SimulatedChoice[], call: ProviderCall): AsyncGenerator<ProviderChunk> {
    const delay = this.tokenDelayMs;
    yield {
      choices: choices.map((choice, index) => ({
        index,
        delta: firstDelta(choice),
        finish_reason: null,
      })),
    };
    const longest = Math.max(...choices.map((c) => c.pieces.length));
    for (let step = 0; step < longest; step++) {
      if (delay > 0) await sleep(delay, undefined, { signal: call.signal });
      call.signal.throwIfAborted();
      for (const [index, choice] of choices.entries()) {
        const piece = choice.pieces[step];
        if (piece !== undefined)
          yield { choices: [{ index, delta: pieceDelta(choice, piece), finish_reason: null }] };
      }
    }
    for (const [index, choice] of choices.entries()) {
      yield { choices: [{ index, delta: {}, finish_reason: choice.finish }] };
    }
    yield { choices: [], usage: usageOf(call, choices) };
  }
}
