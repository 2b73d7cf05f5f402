import { setTimeout as sleep } from 'node:timers/promises';
import type { ChatCompletionRequest, FinishReason } from '@tessera/shared';
import { contentText, encodeText } from '../tokenizer';
import { simulatedReply } from './simulator-text';
import { tokenPieces } from './token-pieces';
import type { ChatProvider, ProviderCall, ProviderChunk, ProviderCompletion } from './types';

interface SimulatedChoice {
  pieces: string[];
  tokens: number;
  finish: FinishReason;
}

function stopsOf(request: ChatCompletionRequest): string[] {
  const stop = request.stop;
  if (stop === null || stop === undefined) return [];
  return (typeof stop === 'string' ? [stop] : stop).filter((s) => s.length > 0);
}

/** One choice: the reply cut at the first stop sequence, then at the completion cap. */
function simulateChoice(call: ProviderCall, index: number): SimulatedChoice {
  const { request } = call;
  const prompt = request.messages.map((m) => contentText(m.content)).join('\n');
  const reply = simulatedReply(prompt, `${call.upstreamModel}/${request.seed ?? ''}/${index}`);
  // JSON modes get JSON, so that clients parsing the answer work against the simulator too.
  const json = request.response_format && request.response_format.type !== 'text';
  let text = json ? JSON.stringify({ answer: reply }) : reply;
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

function simulate(call: ProviderCall): SimulatedChoice[] {
  const n = call.request.n ?? 1;
  return Array.from({ length: n }, (_, i) => simulateChoice(call, i));
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
 * at a time every `tokenDelayMs`, honours `n`, `stop` and the completion cap, and reports true BPE counts.
 */
export class SimulatorProvider implements ChatProvider {
  readonly name = 'simulator';

  constructor(private readonly tokenDelayMs: number) {}

  async complete(call: ProviderCall): Promise<ProviderCompletion> {
    const choices = simulate(call);
    return {
      choices: choices.map((c, index) => ({
        index,
        message: { role: 'assistant', content: c.pieces.join(''), refusal: null },
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
      choices: choices.map((_, index) => ({
        index,
        delta: { role: 'assistant', content: '', refusal: null },
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
          yield { choices: [{ index, delta: { content: piece }, finish_reason: null }] };
      }
    }
    for (const [index, choice] of choices.entries()) {
      yield { choices: [{ index, delta: {}, finish_reason: choice.finish }] };
    }
    yield { choices: [], usage: usageOf(call, choices) };
  }
}
