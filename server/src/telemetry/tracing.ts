import { hostname } from 'node:os';
import {
  type Attributes,
  defaultTextMapGetter,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  type Tracer,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import type { UsageEvent } from '../modules/usage';

export interface TracingConfig {
  /** Where spans are posted (OTLP/HTTP, JSON). */
  url: string;
  headers: Record<string, string>;
  serviceName: string;
  scheduleDelayMs: number;
}

/** A metered request once it is over: what metering knows of it (http/metering.ts). */
export interface EndedRequest {
  /** The request's headers, for a caller's `traceparent`. */
  headers: Record<string, string | string[] | undefined>;
  event: UsageEvent;
  /** The provider that answered a model call (`x-tessera-provider`). */
  provider: string | undefined;
}

/**
 * The OpenAI operations whose spans follow OpenTelemetry's GenAI conventions, by route template. Named by the
 * conventions' `gen_ai.operation.name`.
 */
const GENAI_OPERATIONS: Record<string, string> = {
  '/v1/chat/completions': 'chat',
  '/v1/embeddings': 'embeddings',
  // The Responses API is answered as a chat completion (modules/responses).
  '/v1/responses': 'chat',
};

/**
 * One span per metered request, exported over OTLP. Built from the request's usage event when metering records
 * it, so a call's path does no tracing work at all: the span's start and end are the event's, and the parent is
 * the caller's `traceparent` when it sent one (W3C trace context), so a gateway call shows inside the caller's
 * trace. Model calls are named and attributed as GenAI's conventions say (`chat gpt-4o`, `gen_ai.*`), with the
 * request's HTTP attributes beside them; one span stands for both, since the gateway's work around a model call
 * is the call. Prompts and answers are never attached (the conventions make them opt-in; here they stay out).
 */
export class Tracing {
  private readonly provider: TracerProvider;
  private readonly tracer: Tracer;
  private readonly propagator = new W3CTraceContextPropagator();

  constructor(config: TracingConfig) {
    const exporter = new OTLPTraceExporter({ url: config.url, headers: config.headers });
    this.provider = new TracerProvider({
      resource: resourceFromAttributes({
        'service.name': config.serviceName,
        'service.instance.id': `${hostname()}:${process.pid}`,
      }),
      spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: config.scheduleDelayMs })],
    });
    this.tracer = this.provider.getTracer('tessera');
  }

  requestEnded({ headers, event, provider }: EndedRequest): void {
    const operation = GENAI_OPERATIONS[event.route];
    const name = operation ? `${operation} ${event.model ?? 'unknown'}` : `${event.method} ${event.route}`;
    const attributes: Attributes = {
      'http.request.method': event.method,
      'http.route': event.route,
      'http.response.status_code': event.status,
      'tessera.request_id': event.requestId,
    };
    if (event.accountId) {
      attributes['tessera.account_id'] = event.accountId;
      attributes['tessera.key_id'] = event.keyId;
      attributes['tessera.key_mode'] = event.mode;
    }
    if (operation) {
      attributes['gen_ai.operation.name'] = operation;
      if (event.model) attributes['gen_ai.request.model'] = event.model;
      if (provider) attributes['gen_ai.provider.name'] = provider;
      if (event.promptTokens !== null) attributes['gen_ai.usage.input_tokens'] = event.promptTokens;
      if (event.completionTokens !== null) attributes['gen_ai.usage.output_tokens'] = event.completionTokens;
      // The response cache's part (modules/cache): a hit made no model call.
      if (event.cache) attributes['tessera.cache'] = event.cache;
    }
    if (event.status >= 400)
      attributes['error.type'] = event.errorCode ?? event.errorType ?? String(event.status);
    const parent = this.propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
    const span = this.tracer.startSpan(
      name,
      { kind: SpanKind.SERVER, startTime: event.occurredAt, attributes },
      parent,
    );
    // HTTP's rule for server spans: a 4xx is the caller's doing, not an error of this span.
    if (event.status >= 500)
      span.setStatus({ code: SpanStatusCode.ERROR, message: event.errorMessage ?? undefined });
    span.end(event.occurredAt + event.latencyMs);
  }

  /** Sends what is still waiting; part of a graceful stop. */
  async shutdown(): Promise<void> {
    await this.provider.shutdown();
  }
}
