import { ServiceError } from '../../errors';
import type { Clock } from '../../lib/clock';
import type { Logger } from '../../logger';
import type { ModelEntry } from '../models';
import { type ChatProvider, upstreamProvider } from '../providers';
import { Deployment, type ProbeLease, type TransitionListener } from './deployment';
import { DeploymentHealth } from './health';
import { DeploymentLimits, type UnitLimiter } from './limits';
import { RoutingSpec } from './schema';

/** What the router needs of a provider it made: the chat calls and closing its connections. */
type OwnedProvider = ChatProvider & { close(): Promise<void> };

const DEFAULT_ROUTING = RoutingSpec.parse({});

/** One routed model: its deployments and how they share its calls. */
class ModelRoute {
  /** By weight, heaviest first (ties in list order): the order of the failover after a weighted pick. */
  private readonly byWeight: Deployment[];
  private readonly totalWeight: number;

  constructor(
    readonly strategy: RoutingSpec['strategy'],
    readonly deployments: Deployment[],
  ) {
    this.byWeight = [...deployments].sort((a, b) => b.weight - a.weight);
    this.totalWeight = deployments.reduce((sum, d) => sum + d.weight, 0);
  }

  /**
   * The deployments to try, in order, that are available now (breaker not open, no 429 cooldown running, not
   * found at their own RPM/TPM). `weighted`: the first is smooth weighted round-robin's pick (nginx's: each available
   * deployment's score grows by its weight, the highest is picked and loses the total), so shares are exact
   * over every cycle with no randomness; the rest follow by weight. Weight 0 is never picked first.
   */
  order(now: number): Deployment[] {
    const list = this.strategy === 'weighted' ? this.byWeight : this.deployments;
    const available: Deployment[] = [];
    for (const d of list) if (d.available(now)) available.push(d);
    if (available.length < 2) return available;
    if (this.strategy === 'latency') {
      // Untried ones first (-1), so each gets measured; then the fastest recently.
      return available.sort((a, b) => a.health.latencyMs - b.health.latencyMs);
    }
    if (this.strategy !== 'weighted' || this.totalWeight === 0) return available;
    let total = 0;
    let best: Deployment | undefined;
    for (const d of available) {
      if (d.weight === 0) continue;
      d.current += d.weight;
      total += d.weight;
      if (best === undefined || d.current > best.current) best = d;
    }
    if (best === undefined) return available;
    best.current -= total;
    const at = available.indexOf(best);
    if (at > 0) {
      available.splice(at, 1);
      available.unshift(best);
    }
    return available;
  }

  /** The 503 when none is available: when the first of them will be, as the client's Retry-After. */
  unavailable(entry: ModelEntry, now: number): ServiceError {
    let at = Number.POSITIVE_INFINITY;
    for (const d of this.deployments) at = Math.min(at, d.availableAt(now));
    const waitMs = Math.max(1_000, Math.ceil((at - now) / 1_000) * 1_000);
    return new ServiceError(
      'unavailable',
      `Every deployment of the model '${entry.id}' is resting (circuit breaker open, the upstream's rate limit, or its own requests or tokens per minute). Please retry after ${waitMs / 1_000} s.`,
      { code: 'no_deployment_available', retryable: true, retryAfterMs: waitMs },
    );
  }
}

/** A deployment's breaker and availability as /metrics shows them. */
export interface DeploymentState {
  model: string;
  deployment: string;
  /** Its breaker is open or half-open. */
  open: boolean;
  /** It would take a call now. */
  available: boolean;
}

/** A deployment as the router was given it, its key already read from the environment (config.ts). */
export interface ResolvedDeployment {
  name: string;
  kind: 'openai' | 'anthropic';
  upstreamModel: string;
  baseUrl: string;
  apiKey: string | undefined;
  weight: number;
  rpm: number | undefined;
  tpm: number | undefined;
  /** `responses_api: true`: the upstream's own Responses API answers `POST /v1/responses`. */
  responsesApi: boolean;
}

/** A change of a deployment's state that every instance should know (sync.ts), `until` in ms since the epoch. */
export interface SharedRoutingEvent {
  model: string;
  deployment: string;
  kind: 'opened' | 'closed' | 'rested';
  until: number;
}

/** Where the router sends its deployments' changes for the other instances (Redis: sync.ts). */
export interface RoutingSync {
  publish(event: SharedRoutingEvent): void;
  /**
   * The lease of a half-open breaker's one probe across instances, for `ttlMs`: 0 when this instance holds it
   * (or nothing could be asked: each instance then probes for itself), else the ms until another's lease ends.
   */
  acquireProbe(model: string, deployment: string, ttlMs: number): Promise<number>;
  releaseProbe(model: string, deployment: string): void;
}

/** A time of this process's clock (performance.now()) as ms since the epoch, and back: instances share the latter. */
const toEpoch = (at: number) => Date.now() + (at - performance.now());
const fromEpoch = (epoch: number) => performance.now() + (epoch - Date.now());

/** Every routed model of the catalogue (those with `deployments`), their deployments' health, and their pools. */
export class DeploymentRouter {
  private readonly routes = new Map<string, ModelRoute>();
  private readonly owned: OwnedProvider[] = [];
  private sync: RoutingSync | undefined;

  constructor(
    models: { entry: ModelEntry; deployments: ResolvedDeployment[] }[],
    private readonly logger: Logger,
    /** The rate limiter that counts deployments' own RPM/TPM (the keys' own: shared on Redis), and its clock. */
    limiter: UnitLimiter,
    clock: Clock,
  ) {
    for (const { entry, deployments } of models) {
      const onTransition: TransitionListener = (d, transition) => this.changed(entry.id, d, transition);
      // Read at the probe, not now: the sync is attached after the router is made.
      const probes: ProbeLease = {
        acquire: (d) => this.sync?.acquireProbe(entry.id, d.name, d.health.cooldownMs),
        release: (d) => this.sync?.releaseProbe(entry.id, d.name),
      };
      const routing = entry.routing ?? DEFAULT_ROUTING;
      const list = deployments.map((d) => {
        const provider = upstreamProvider({
          kind: d.kind,
          name: d.name,
          baseUrl: d.baseUrl,
          apiKey: d.apiKey,
        });
        this.owned.push(provider);
        return new Deployment(
          d.name,
          d.upstreamModel,
          d.weight,
          new DeploymentHealth(routing.breaker),
          provider,
          routing.attempt_timeout_ms ?? 0,
          onTransition,
          d.responsesApi,
          {
            probes,
            limits:
              d.rpm === undefined && d.tpm === undefined
                ? undefined
                : new DeploymentLimits(limiter, clock, entry.id, d.name, d.rpm, d.tpm),
          },
        );
      });
      this.routes.set(entry.id, new ModelRoute(routing.strategy, list));
    }
  }

  /**
   * The deployments to try for a call to the model, best first; undefined for a model without deployments.
   * Empty when none is available: `unavailable` says until when.
   */
  order(entry: ModelEntry): Deployment[] | undefined {
    return this.routes.get(entry.id)?.order(performance.now());
  }

  unavailable(entry: ModelEntry): ServiceError {
    const route = this.routes.get(entry.id);
    if (!route) throw new Error(`'${entry.id}' is not a routed model`);
    return route.unavailable(entry, performance.now());
  }

  /** Each deployment's state now, for /metrics (read at scrape time, not kept up to date). */
  *states(): Generator<DeploymentState> {
    const now = performance.now();
    for (const [model, route] of this.routes) {
      for (const d of route.deployments) {
        yield {
          model,
          deployment: d.name,
          open: d.health.state !== 'closed',
          available: d.available(now),
        };
      }
    }
  }

  /** Shares each deployment's changes through `sync` from now on (Redis, when configured). */
  attach(sync: RoutingSync): void {
    this.sync = sync;
  }

  /** Every (model, deployment) pair, for the shared state's keys. */
  *pairs(): Generator<{ model: string; deployment: string }> {
    for (const [model, route] of this.routes)
      for (const d of route.deployments) yield { model, deployment: d.name };
  }

  /**
   * Another instance's change, applied here without being shared again: its 429 rest, its breaker opened (this
   * instance keeps the deployment out until the same moment) or closed by its probe. Unknown names (another
   * instance on another catalogue) are ignored.
   */
  applyShared(event: SharedRoutingEvent): void {
    const d = this.routes.get(event.model)?.deployments.find((x) => x.name === event.deployment);
    if (!d) return;
    if (event.kind === 'rested') d.health.restedElsewhere(fromEpoch(event.until));
    else if (event.kind === 'opened') d.health.openedElsewhere(fromEpoch(event.until));
    else d.health.closedElsewhere();
  }

  private changed(model: string, d: Deployment, transition: SharedRoutingEvent['kind']): void {
    if (transition === 'opened') {
      this.logger.warn(
        { deployment: d.name, failures: d.health.consecutiveFailures },
        'deployment circuit breaker opened',
      );
    } else if (transition === 'closed') {
      this.logger.info({ deployment: d.name }, 'deployment circuit breaker closed: the probe answered');
    }
    if (!this.sync) return;
    const until =
      transition === 'rested'
        ? toEpoch(d.health.coolUntil)
        : transition === 'opened'
          ? toEpoch(d.health.openUntilMs)
          : Date.now();
    this.sync.publish({ model, deployment: d.name, kind: transition, until });
  }

  /** Every deployment of the model (for its health in tests and logs). */
  deploymentsOf(modelId: string): readonly Deployment[] {
    return this.routes.get(modelId)?.deployments ?? [];
  }

  async close(): Promise<void> {
    await Promise.all(this.owned.map((p) => p.close()));
  }
}
