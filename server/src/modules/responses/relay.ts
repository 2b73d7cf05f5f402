import { ServiceError } from '../../errors';
import {
  type AttemptTarget,
  attemptOptions,
  CallDeadline,
  type ChatCall,
  type ChatOutcome,
  type ChatService,
  pumpStream,
  responsesOf,
  type UsageMeter,
  withAllowance,
  withRetries,
} from '../chat';
import type { RelayedEvent, ResponsesCall, ResponsesProvider } from '../providers';
import { type ResponseEventSink, responseErrorCode } from './stream';

/**
 * `POST /v1/responses` relayed to upstreams that speak the Responses API themselves (README.md, "Native
 * relay"): the client's request (validated) goes to the upstream's `POST /responses`, and its response or its
 * events come back as they are, but for `model`, which names the catalogue's model as every answer of the
 * gateway does. The accounting is chat's own: the allowance and the budgets reserved before and settled after
 * (withAllowance), the upstream's usage from its `response.completed` (an aborted stream: what it sent, counted),
 * retries and failover across deployments before the first byte only (withRetries), the model timeout and the
 * client leaving (CallDeadline), and the call ended at shutdown (ChatService.track).
 */

/** Deltas whose text is the model's output: counted for the meter when a stream ends without usage. */
const OUTPUT_DELTAS = new Set([
  'response.output_text.delta',
  'response.refusal.delta',
  'response.reasoning_text.delta',
  'response.reasoning_summary_text.delta',
  'response.function_call_arguments.delta',
]);

function relayOf(target: AttemptTarget): ResponsesProvider {
  const relay = responsesOf(target);
  // speaksResponses chose the relay for this model and its fallback only if all of them have one.
  if (!relay) throw new Error(`'${target.provider.name}' does not speak the Responses API`);
  return relay;
}

function upstreamCall(
  call: ChatCall,
  target: AttemptTarget,
  body: Record<string, unknown>,
  signal: AbortSignal,
): ResponsesCall {
  return {
    upstreamModel: target.entry.upstream_model,
    body,
    promptTokens: call.prepared.promptTokens,
    maxTokens: call.prepared.maxTokens,
    signal,
  };
}

/** The whole response of the upstream, its `model` the catalogue's. */
export function relayResponse(
  chat: ChatService,
  call: ChatCall,
  body: Record<string, unknown>,
): Promise<ChatOutcome<Record<string, unknown>>> {
  const deps = chat.dependencies;
  return chat.track(call.abort, () =>
    withAllowance(deps, call, async (meter) => {
      const deadline = new CallDeadline(deps.timeoutMs, call.abort);
      try {
        const { value, target } = await withRetries(
          attemptOptions(deps, call, deadline.signal, true),
          (t) => {
            call.onProvider(t.provider.name);
            return relayOf(t).respond(upstreamCall(call, t, body, deadline.signal));
          },
        );
        meter.model = target.entry.id;
        meter.charged = true;
        if (value.usage) meter.report(value.usage);
        value.body.model = target.entry.id;
        return value.body;
      } catch (err) {
        if (deadline.timedOut || deadline.clientGone || deadline.shutDown) meter.charged = true;
        throw deadline.explain(err);
      } finally {
        deadline.clear();
      }
    }),
  );
}

/**
 * The upstream's events as they come. Its `sequence_number`s are kept; a failure after the stream opened adds an
 * `error` event and `response.failed` (the response as last seen), numbered on from the upstream's last.
 */
class EventRelay {
  private sequence = -1;
  private response: Record<string, unknown> | undefined;
  /** The deployment or provider that answers, for the message of a failure it reported itself. */
  provider = '';
  /** The upstream's own `error` or `response.failed` event, relayed as it came: its error, for metering. */
  private reportedFailure: { code: string | null; message: string } | undefined;

  constructor(
    private readonly meter: UsageMeter,
    /** The catalogue's model that answers: the requested one, or its fallback. */
    public model: string,
  ) {}

  /** The event's JSON as the client gets it: the upstream's text, or rewritten where it holds the response. */
  jsonOf(event: RelayedEvent): string {
    const { data } = event;
    if (typeof data.sequence_number === 'number') this.sequence = data.sequence_number;
    if (event.usage) this.meter.report(event.usage);
    if (OUTPUT_DELTAS.has(event.type)) {
      if (typeof data.delta === 'string') this.meter.produce(data.delta);
      return event.json;
    }
    if (event.type === 'error' || event.type === 'response.failed') this.noteFailure(data);
    const response = data.response;
    if (typeof response !== 'object' || response === null) return event.json;
    const named = response as Record<string, unknown>;
    named.model = this.model;
    this.response = named;
    return JSON.stringify(data);
  }

  /** `error` has its code and message at the top; `response.failed` in its response's `error`. */
  private noteFailure(data: Record<string, unknown>): void {
    if (this.reportedFailure) return;
    const response = data.response as { error?: unknown } | undefined;
    const error = (data.type === 'error' ? data : response?.error) as
      | { code?: unknown; message?: unknown }
      | null
      | undefined;
    this.reportedFailure = {
      code: typeof error?.code === 'string' ? error.code : null,
      message: typeof error?.message === 'string' ? error.message : 'no message',
    };
  }

  /** Records the failure the upstream reported in its events (nothing is sent: the client has its events). */
  upstreamFailure(sink: ResponseEventSink): void {
    const failure = this.reportedFailure;
    if (!failure) return;
    sink.failure(
      new ServiceError(
        'upstream',
        `The upstream provider '${this.provider}' failed the response: ${failure.message}`,
        { code: failure.code ?? 'upstream_error' },
      ),
    );
  }

  failed(sink: ResponseEventSink, err: unknown): void {
    const failure = sink.failure(err);
    const error = { type: 'error', code: failure.code, message: failure.message, param: failure.param };
    sink.event('error', JSON.stringify({ ...error, sequence_number: ++this.sequence }));
    if (!this.response) return;
    const response = {
      ...this.response,
      status: 'failed',
      error: { code: responseErrorCode(failure), message: failure.message },
    };
    sink.event(
      'response.failed',
      JSON.stringify({ type: 'response.failed', response, sequence_number: ++this.sequence }),
    );
  }
}

/** The upstream's Responses stream relayed; retries and failover happen before `open`, never after it. */
export function relayResponseStream(
  chat: ChatService,
  call: ChatCall,
  body: Record<string, unknown>,
  sink: ResponseEventSink,
): Promise<ChatOutcome<void>> {
  const deps = chat.dependencies;
  return chat.track(call.abort, () =>
    withAllowance(deps, call, async (meter) => {
      const relay = new EventRelay(meter, call.prepared.entry.id);
      await pumpStream<RelayedEvent>(deps, call, meter, sink, {
        responses: true,
        failureLog: 'relayed response stream failed after it started',
        attempt: (t, signal) => relayOf(t).respondStream(upstreamCall(call, t, body, signal)),
        accepted(target) {
          relay.model = target.entry.id;
          relay.provider = target.provider.name;
        },
        item(event) {
          sink.event(event.type, relay.jsonOf(event));
          return true;
        },
        async finish() {
          // The upstream said in its own events that the response failed: they reached the client as they
          // came, and the call is metered as that failure, not as the 200 its stream opened with.
          relay.upstreamFailure(sink);
          sink.end();
        },
        failed(cause, deadline) {
          if (!deadline.clientGone) relay.failed(sink, cause);
          sink.end();
        },
      });
    }),
  );
}
