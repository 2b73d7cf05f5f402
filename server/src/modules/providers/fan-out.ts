import type { Usage } from '@tessera/shared';
import { CallAbortController } from '../../lib/call-abort';
import type { ProviderCall, ProviderChunk, ProviderCompletion } from './types';

/**
 * `n` choices from an API that answers one per request (Anthropic's): `n` calls of one choice each, made at
 * once, their choices numbered 0…n-1 and their usage summed (each call read the prompt, so the prompt is
 * billed `n` times, as the upstream bills it). One failing aborts the others: nothing is answered in part.
 */
export class FanOut {
  private readonly abort = new CallAbortController();
  readonly calls: ProviderCall[];

  constructor(call: ProviderCall) {
    const n = call.request.n ?? 1;
    const request = { ...call.request, n: 1 };
    const signal = this.abort.signal;
    if (call.signal.aborted) this.abort.abort(call.signal.reason);
    else call.signal.addEventListener('abort', () => this.abort.abort(call.signal.reason));
    this.calls = Array.from({ length: n }, () => ({ ...call, request, signal }));
  }

  /** The calls' whole answers as one. */
  async complete(one: (call: ProviderCall) => Promise<ProviderCompletion>): Promise<ProviderCompletion> {
    try {
      const answers = await Promise.all(this.calls.map(one));
      return {
        choices: answers.map((a, index) => ({
          ...(a.choices[0] as ProviderCompletion['choices'][0]),
          index,
        })),
        usage: sumUsage(answers.map((a) => a.usage)),
      };
    } catch (err) {
      this.abort.abort(err);
      throw err;
    }
  }

  /**
   * The calls' streams as one, once every call has been accepted (so that a refusal is still an HTTP error):
   * chunks as they come from any of them, each choice renumbered to its call, and one usage chunk at the end.
   */
  async stream(
    one: (call: ProviderCall) => Promise<AsyncIterable<ProviderChunk>>,
  ): Promise<AsyncIterable<ProviderChunk>> {
    try {
      const streams = await Promise.all(this.calls.map(one));
      return this.merge(streams.map((s) => s[Symbol.asyncIterator]()));
    } catch (err) {
      this.abort.abort(err);
      throw err;
    }
  }

  private async *merge(iterators: AsyncIterator<ProviderChunk>[]): AsyncGenerator<ProviderChunk> {
    type Step = { index: number; step: IteratorResult<ProviderChunk> };
    const pending = new Map<number, Promise<Step>>();
    const next = (index: number) => {
      pending.set(
        index,
        (iterators[index] as AsyncIterator<ProviderChunk>).next().then((step) => ({ index, step })),
      );
    };
    iterators.forEach((_, index) => {
      next(index);
    });
    const usages: Usage[] = [];
    try {
      while (pending.size > 0) {
        const { index, step } = await Promise.race(pending.values());
        if (step.done) {
          pending.delete(index);
          continue;
        }
        next(index);
        const chunk = step.value;
        if (chunk.usage) usages.push(chunk.usage);
        if (chunk.choices.length === 0) continue;
        yield { choices: chunk.choices.map((c) => ({ ...c, index })) };
      }
      if (usages.length === iterators.length) yield { choices: [], usage: sumUsage(usages) };
    } finally {
      // A failure, or the client gone: the other calls stop too, and what they were reading is let go.
      if (pending.size > 0) {
        this.abort.abort(new Error('another choice of the call failed or the call ended'));
        for (const step of pending.values()) step.catch(() => {});
      }
    }
  }
}

function sumUsage(usages: Usage[]): Usage {
  let prompt = 0;
  let completion = 0;
  let cached = 0;
  for (const u of usages) {
    prompt += u.prompt_tokens;
    completion += u.completion_tokens;
    cached += u.prompt_tokens_details?.cached_tokens ?? 0;
  }
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    ...(cached > 0 && { prompt_tokens_details: { cached_tokens: cached } }),
  };
}
