import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import type { AssistantMessage, ChatCompletionRequest, ChunkDelta, FinishReason } from '@tessera/shared';
import { contentText, encodeText } from '../tokenizer';
import { inFormat } from './embedding-format';
import { simulatedEmbedding } from './simulator-embeddings';
import { jsonValueFor, valueSourceFrom } from './simulator-json';
import { SchemaBudget } from './simulator-json-budget';
import { seedOf, simulatedReply } from './simulator-text';
import {
  chosenTool,
  type FunctionTool,
  lastUserText,
  simulatedToolCalls,
  trailingToolResults,
} from './simulator-tools';
import { tokenPieces } from './token-pieces';
import type {
  ChatProvider,
  EmbeddingCall,
  EmbeddingProvider,
  ProviderCall,
  ProviderChunk,
  ProviderCompletion,
  ProviderEmbeddings,
} from './types';

/** About 10 ms of simulated embedding on a slow machine: see `embed`. */
const EMBED_TURN_COMPONENTS = 65_536;

interface SimulatedChoice {
  /** The content's pieces (a text choice). */
  pieces: string[];
  tokens: number;
  finish: FinishReason;
  /** Set when the choice is tool calls: each with its arguments' pieces. */
  calls?: { id: string; name: string; pieces: string[] }[];
}

function stopsOf(request: ChatCompletionRequest): string[] {
  const stop = request.stop;
  if (stop === null || stop === undefined) return [];
  return (typeof stop === 'string' ? [stop] : stop).filter((s) => s.length > 0);
}

/** JSON modes get JSON, so that clients parsing the answer work against the simulator too. */
function jsonAnswer(
  request: ChatCompletionRequest,
  reply: string,
  variant: string,
  budget: SchemaBudget,
): string {
  const format = request.response_format as { type: string; json_schema?: { schema?: unknown } };
  const schema = format.type === 'json_schema' ? format.json_schema?.schema : undefined;
  if (typeof schema !== 'object' || schema === null || Object.keys(schema).length === 0) {
    return JSON.stringify({ answer: reply });
  }
  const prompt = seedOf(request.messages.map((m) => contentText(m.content)).join('\n'));
  return JSON.stringify(
    jsonValueFor(
      schema,
      valueSourceFrom(lastUserText(request), `${variant}\u0000${prompt}`),
      'response_format.json_schema.schema',
      budget,
    ),
  );
}

/** A text choice: the reply cut at the first stop sequence, then at the completion cap. */
function simulateText(call: ProviderCall, variant: string, budget: SchemaBudget): SimulatedChoice {
  const { request } = call;
  // After a tool's result the answer is about the result, as a model's would be.
  const toolResults = trailingToolResults(request);
  const prompt = toolResults ?? request.messages.map((m) => contentText(m.content)).join('\n');
  const reply = simulatedReply(prompt, variant, {
    asked: toolResults ?? lastUserText(request),
    toolResult: toolResults !== undefined,
  });
  const json = request.response_format && request.response_format.type !== 'text';
  let text = json ? jsonAnswer(request, reply, variant, budget) : reply;
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
 * A tool-call choice. The model's output is the functions' names and their arguments: the count is theirs, and a
 * cap they exceed cuts the arguments (finish `length`, as OpenAI ends a call cut short); calls past the cap are not
 * made.
 */
function simulateToolCalls(
  call: ProviderCall,
  tool: FunctionTool,
  variant: string,
  budget: SchemaBudget,
): SimulatedChoice {
  const calls: NonNullable<SimulatedChoice['calls']> = [];
  let finish: FinishReason = 'tool_calls';
  let count = 0;
  for (const { id, name, arguments: args } of simulatedToolCalls(tool, call.request, variant, budget)) {
    if (calls.length > 0 && count >= call.maxTokens) break;
    const nameTokens = encodeText(name).length;
    let tokens = encodeText(args);
    const room = Math.max(0, call.maxTokens - count - nameTokens);
    if (tokens.length > room) {
      tokens = tokens.slice(0, room);
      finish = 'length';
    }
    // A cap below the name's own length still gets the whole name, counted as the cap.
    count = Math.min(call.maxTokens, count + nameTokens + tokens.length);
    calls.push({ id, name, pieces: tokenPieces(tokens) });
    if (finish === 'length') break;
  }
  return { pieces: [], tokens: count, finish, calls };
}

function simulate(call: ProviderCall): SimulatedChoice[] {
  const { request } = call;
  const tool = chosenTool(request);
  // One budget for the schemas' work of every choice and call of the answer (simulator-json-budget.ts).
  const budget = new SchemaBudget();
  return Array.from({ length: request.n ?? 1 }, (_, i) => {
    const variant = `${call.upstreamModel}/${request.seed ?? ''}/${i}`;
    return tool ? simulateToolCalls(call, tool, variant, budget) : simulateText(call, variant, budget);
  });
}

function messageOf(choice: SimulatedChoice): AssistantMessage {
  if (!choice.calls) return { role: 'assistant', content: choice.pieces.join(''), refusal: null };
  return {
    role: 'assistant',
    content: null,
    refusal: null,
    tool_calls: choice.calls.map(({ id, name, pieces }) => ({
      id,
      type: 'function' as const,
      function: { name, arguments: pieces.join('') },
    })),
  };
}

/** A call's opening delta: its index, id and name, with the arguments still empty. */
function callOpening(index: number, id: string, name: string): NonNullable<ChunkDelta['tool_calls']>[number] {
  return { index, id, type: 'function', function: { name, arguments: '' } };
}

/** A choice's first delta: the role, and for tool calls the first call's opening. */
function firstDelta(choice: SimulatedChoice): ChunkDelta {
  const first = choice.calls?.[0];
  if (!first) return { role: 'assistant', content: '', refusal: null };
  return {
    role: 'assistant',
    content: null,
    refusal: null,
    tool_calls: [callOpening(0, first.id, first.name)],
  };
}

/**
 * The deltas after the first, one a token: the content's pieces; or each call's arguments in turn, every call
 * after the first opened by a delta of its own, as OpenAI streams parallel calls.
 */
function laterDeltas(choice: SimulatedChoice): ChunkDelta[] {
  if (!choice.calls) return choice.pieces.map((content) => ({ content }));
  return choice.calls.flatMap(({ id, name, pieces }, index) => [
    ...(index > 0 ? [{ tool_calls: [callOpening(index, id, name)] }] : []),
    ...pieces.map((piece) => ({ tool_calls: [{ index, function: { arguments: piece } }] })),
  ]);
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
 * The simulator's `system_fingerprint`, on every simulated completion and chunk: OpenAI's clients show it and
 * keep it beside answers, so a simulated answer is recognisable wherever it ends up. Like OpenAI's, it names the
 * configuration that answered: bump the revision when the simulator's answer to the same request changes
 * (simulator-text.test.ts pins one answer beside it).
 */
export const SIMULATOR_FINGERPRINT = 'tessera-sim-2';

/**
 * The built-in simulator: offline, deterministic, no weights. Answers from the prompt's own words, streams one token
 * at a time every `tokenDelayMs`, honours `n`, `stop` and the completion cap, and reports true BPE counts. Calls
 * tools (simulator-tools.ts) and answers JSON schemas (simulator-json.ts) with values valid against their schemas.
 * Embeds as simulator-embeddings.ts says, the prompt tokens being Tessera's own count.
 */
export class SimulatorProvider implements ChatProvider, EmbeddingProvider {
  readonly name = 'simulator';

  constructor(private readonly tokenDelayMs: number) {}

  /**
   * A turn of the event loop computes at most EMBED_TURN_COMPONENTS components (and reads as many characters):
   * a request's 2,048 vectors of 3,072 took over a second of CPU at once, which every other request would wait for.
   */
  async embed(call: EmbeddingCall): Promise<ProviderEmbeddings> {
    const embeddings: (number[] | string)[] = [];
    let work = 0;
    for (const input of call.inputs) {
      if (work >= EMBED_TURN_COMPONENTS) {
        await nextTurn();
        if (call.signal.aborted) throw call.signal.reason;
        work = 0;
      }
      const vector = simulatedEmbedding(input, call.upstreamModel, call.modelDimensions, call.dimensions);
      embeddings.push(inFormat(vector, call.encodingFormat));
      work += call.modelDimensions + input.length;
    }
    return { embeddings, usage: { prompt_tokens: call.promptTokens, total_tokens: call.promptTokens } };
  }

  async complete(call: ProviderCall): Promise<ProviderCompletion> {
    const choices = simulate(call);
    return {
      choices: choices.map((c, index) => ({
        index,
        message: messageOf(c),
        finish_reason: c.finish,
      })),
      usage: usageOf(call, choices),
      system_fingerprint: SIMULATOR_FINGERPRINT,
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
      system_fingerprint: SIMULATOR_FINGERPRINT,
    };
    const deltas = choices.map(laterDeltas);
    const longest = Math.max(...deltas.map((d) => d.length));
    for (let step = 0; step < longest; step++) {
      if (delay > 0) await sleep(delay, undefined, { signal: call.signal });
      call.signal.throwIfAborted();
      for (const [index, choiceDeltas] of deltas.entries()) {
        const delta = choiceDeltas[step];
        if (delta !== undefined)
          yield {
            choices: [{ index, delta, finish_reason: null }],
            system_fingerprint: SIMULATOR_FINGERPRINT,
          };
      }
    }
    for (const [index, choice] of choices.entries()) {
      yield {
        choices: [{ index, delta: {}, finish_reason: choice.finish }],
        system_fingerprint: SIMULATOR_FINGERPRINT,
      };
    }
    yield { choices: [], usage: usageOf(call, choices), system_fingerprint: SIMULATOR_FINGERPRINT };
  }
}
