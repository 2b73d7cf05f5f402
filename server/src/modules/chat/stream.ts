import type { ChunkChoice, ChunkDelta } from '@tessera/shared';
import type { ProviderChunk } from '../providers';
import { type ChatCall, type ChatDeps, providerCall, unixSeconds } from './deps';
import { ChunkEnvelope } from './envelope';
import { asFunctionDelta, asFunctionFinish } from './legacy-functions';
import { type ChatOutcome, type UsageMeter, withAllowance } from './meter';
import { pumpStream } from './stream-loop';

/** Where a stream goes: Server-Sent Events on the client's response. */
export interface ChatSink {
  /** Sends the status and headers; called once the provider has accepted the call, before any token. */
  open(): void;
  /** One event: a chunk's JSON text (ChunkEnvelope's). */
  send(json: string): void;
  /**
   * Undefined while the client keeps up with the stream; otherwise a promise that settles once it has read
   * enough, or has gone (a client that stays stalled is cut off). The stream, and so its upstream, waits.
   */
  ready(): Promise<void> | undefined;
  comment(text: string): void;
  /** An error event in OpenAI's body, for a failure after the stream started. */
  error(err: unknown): void;
  /** `data: [DONE]` and the end of the response. */
  done(): void;
  end(): void;
}

/**
 * What a delta adds to the model's output, for the meter when the provider reports no usage: the content, a
 * refusal, and the tool calls' names and arguments (a model writing a tool call produces tokens too).
 */
function produced(meter: UsageMeter, delta: ChunkDelta): void {
  if (delta.content) meter.produce(delta.content);
  if (delta.refusal) meter.produce(delta.refusal);
  if (delta.reasoning_content) meter.produce(delta.reasoning_content);
  if (!delta.tool_calls) return;
  for (const call of delta.tool_calls) {
    const fn = (call as { function?: { name?: unknown; arguments?: unknown } }).function;
    if (typeof fn?.name === 'string') meter.produce(fn.name);
    if (typeof fn?.arguments === 'string') meter.produce(fn.arguments);
  }
}

/** Rewrites provider chunks into ours: role on each choice's first delta, usage kept for the meter. */
class ChunkRelay {
  private readonly started = new Set<number>();
  private readonly finished = new Set<number>();

  constructor(
    private readonly meter: UsageMeter,
    /** The client used the deprecated `functions`: tool calls go back to it as `function_call`. */
    private readonly functions: boolean,
  ) {}

  choicesOf(chunk: ProviderChunk): ChunkChoice[] {
    if (chunk.usage) this.meter.report(chunk.usage);
    return chunk.choices.map((c) => {
      produced(this.meter, c.delta);
      const ours = this.functions ? asFunctionDelta(c.delta) : c.delta;
      const delta = this.started.has(c.index) ? ours : { role: 'assistant' as const, ...ours };
      this.started.add(c.index);
      if (c.finish_reason) this.finished.add(c.index);
      const finish = this.functions && c.finish_reason ? asFunctionFinish(c.finish_reason) : c.finish_reason;
      return { index: c.index, delta, logprobs: c.logprobs ?? null, finish_reason: finish };
    });
  }

  /** A choice the provider never closed gets a final chunk, so that clients always see a finish_reason. */
  unfinished(): ChunkChoice[] {
    return [...this.started]
      .filter((i) => !this.finished.has(i))
      .map((index) => ({ index, delta: {}, logprobs: null, finish_reason: 'stop' as const }));
  }
}

/** A streamed completion. Retries and the fallback happen before `open`; after it, failures end the stream. */
export async function streamChat(deps: ChatDeps, call: ChatCall, sink: ChatSink): Promise<ChatOutcome<void>> {
  return withAllowance(deps, call, async (meter) => {
    const { prepared } = call;
    const includeUsage = prepared.request.stream_options?.include_usage === true;
    let envelope: ChunkEnvelope | undefined;
    let relay: ChunkRelay | undefined;
    await pumpStream<ProviderChunk>(deps, call, meter, sink, {
      responses: false,
      failureLog: 'stream failed after it started',
      attempt: (t, signal) => t.provider.stream(providerCall(prepared, t, signal)),
      accepted(target) {
        envelope = new ChunkEnvelope(unixSeconds(deps.clock), target.entry.id, includeUsage);
        relay = new ChunkRelay(meter, prepared.functions);
      },
      item(chunk) {
        if (!envelope || !relay) return false;
        envelope.fingerprintOf(chunk.system_fingerprint);
        const choices = relay.choicesOf(chunk);
        if (choices.length === 0) return false;
        sink.send(envelope.chunk(choices));
        return true;
      },
      async finish() {
        if (!envelope || !relay) return;
        const unfinished = relay.unfinished();
        if (unfinished.length > 0) sink.send(envelope.chunk(unfinished));
        if (includeUsage) {
          const used = await meter.usage();
          const details = meter.reportedUsage;
          sink.send(
            envelope.usage({
              prompt_tokens: used.promptTokens,
              completion_tokens: used.completionTokens,
              total_tokens: used.promptTokens + used.completionTokens,
              ...(details?.prompt_tokens_details && { prompt_tokens_details: details.prompt_tokens_details }),
              ...(details?.completion_tokens_details && {
                completion_tokens_details: details.completion_tokens_details,
              }),
            }),
          );
        }
        sink.done();
      },
      failed(cause, deadline) {
        // The error event: the transport answers it and meters the call as that error (its status and type).
        if (!deadline.clientGone) sink.error(cause);
        // Ended by a stopping server: the client gets the stream's regular end after the error, so that it
        // tells a server that stopped from a connection that broke.
        if (deadline.shutDown) sink.done();
        else sink.end();
      },
    });
  });
}
