import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { SCOPED_RESOURCE_KINDS, type ScopedResource } from '../errors';
import { DENIAL_TRANSPORTS, type DenialTransport, type TenantDenialSink } from '../lib/tenant-denial';
import type { UsageMetricsSink } from '../modules/usage';
import type { MetricsSource } from './endpoint';

/** A monotonic count kept by another module (e.g. the limiter's fallback decisions), read at scrape time. */
export type CounterSource = () => number;

/**
 * The process's Prometheus metrics, in a registry of its own (not prom-client's global one) so that several
 * servers in one process, as in tests, never collide. Labels are route templates, status codes and kinds only:
 * no account, key or tenant data ever reaches /metrics.
 */
export class Metrics implements UsageMetricsSink, TenantDenialSink, MetricsSource {
  readonly registry = new Registry();
  /** Where the exposition comes from instead of this registry: a cluster's primary, summing every process's. */
  private source: (() => Promise<string>) | undefined;
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly latency: Histogram<'method' | 'route'>;
  private readonly eventsWritten: Counter;
  private readonly eventsDropped: Counter<'reason'>;
  private readonly unattributedRequests: Counter;
  private readonly tenantDenials: Counter<'transport' | 'resource'>;
  private readonly latencyChildren = new Map<string, Histogram.Internal<'method' | 'route'>>();
  private readonly requestChildren = new Map<string, Counter.Internal>();

  /** The text `GET /metrics` answers with (Prometheus's exposition format). */
  exposition(): Promise<string> {
    return this.source ? this.source() : this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** In a cluster's process: answer with every process's metrics, summed by the primary (cluster.ts). */
  answerFrom(source: () => Promise<string>): void {
    this.source = source;
  }

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'tessera_' });
    this.requests = new Counter({
      name: 'tessera_http_requests_total',
      help: 'API requests by method, route template and status (499 = client went away).',
      labelNames: ['method', 'route', 'status'],
      registers: [this.registry],
    });
    this.latency = new Histogram({
      name: 'tessera_http_request_duration_seconds',
      help: 'API request latency by method and route template.',
      labelNames: ['method', 'route'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [this.registry],
    });
    this.eventsWritten = new Counter({
      name: 'tessera_usage_events_written_total',
      help: 'Usage events written to the database.',
      registers: [this.registry],
    });
    this.eventsDropped = new Counter({
      name: 'tessera_usage_events_dropped_total',
      help: 'Usage events dropped (buffer full, unwritable at shutdown, too many unverifiable keys).',
      labelNames: ['reason'],
      registers: [this.registry],
    });
    this.unattributedRequests = new Counter({
      name: 'tessera_unattributed_requests_total',
      help: 'Requests that could not be attributed to an account (missing or unknown key).',
      registers: [this.registry],
    });
    this.tenantDenials = new Counter({
      name: 'tessera_tenant_isolation_denied_total',
      help: 'Account-scoped not-found answers (logged as tenant_isolation_denied) by transport and resource kind.',
      labelNames: ['transport', 'resource'],
      registers: [this.registry],
    });
    // Every series from 0, so that a rate or an alert sees the first refusal.
    for (const transport of DENIAL_TRANSPORTS)
      for (const resource of SCOPED_RESOURCE_KINDS) this.tenantDenials.labels({ transport, resource }).inc(0);
  }

  observeRequest(method: string, route: string, status: number, latencyMs: number): void {
    // prom-client hashes the label set on every call; the children are cached per series instead
    // (route templates and statuses are few, so these maps stay small).
    const series = `${method} ${route}`;
    let latency = this.latencyChildren.get(series);
    if (!latency) {
      latency = this.latency.labels({ method, route });
      this.latencyChildren.set(series, latency);
    }
    latency.observe(latencyMs / 1000);
    const withStatus = `${series} ${status}`;
    let requests = this.requestChildren.get(withStatus);
    if (!requests) {
      requests = this.requests.labels({ method, route, status: String(status) });
      this.requestChildren.set(withStatus, requests);
    }
    requests.inc();
  }

  written(n: number): void {
    this.eventsWritten.inc(n);
  }

  dropped(n: number, reason: string): void {
    this.eventsDropped.inc({ reason }, n);
  }

  unattributed(n: number): void {
    this.unattributedRequests.inc(n);
  }

  tenantDenied(transport: DenialTransport, resource: ScopedResource['kind']): void {
    this.tenantDenials.labels({ transport, resource }).inc();
  }

  /** A gauge read at scrape time (the usage buffer's depth). */
  gauge(name: string, help: string, read: () => number): void {
    new Gauge({
      name,
      help,
      registers: [this.registry],
      collect() {
        this.set(read());
      },
    });
  }

  /** A gauge with labels whose series are all read at scrape time (each routed deployment's breaker). */
  labelledGauge<L extends string>(
    name: string,
    help: string,
    labelNames: L[],
    read: () => Iterable<{ labels: Record<L, string>; value: number }>,
  ): void {
    new Gauge({
      name,
      help,
      labelNames,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const series of read()) this.set(series.labels, series.value);
      },
    });
  }

  /** A counter kept elsewhere as a plain number, exposed as a Prometheus counter. */
  externalCounter(name: string, help: string, read: CounterSource): void {
    new Counter({
      name,
      help,
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(read());
      },
    });
  }
}
