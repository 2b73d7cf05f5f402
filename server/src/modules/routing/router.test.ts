import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../lib/clock';
import { createLogger } from '../../logger';
import type { ModelEntry } from '../models';
import { MemoryRateLimitStore, RateLimiter } from '../ratelimit';
import { DeploymentRouter, type ResolvedDeployment } from './router';
import { RoutingSpec } from './schema';

const routers: DeploymentRouter[] = [];
afterEach(async () => {
  await Promise.all(routers.splice(0).map((r) => r.close()));
});

function routerOf(strategy: 'ordered' | 'weighted' | 'latency', weights: number[], rpm?: number) {
  const entry = {
    id: 'm',
    provider: 'openai',
    upstream_model: 'u',
    context_window: 100,
    max_output_tokens: 10,
    description: '',
    created: 0,
    routing: RoutingSpec.parse({ strategy }),
  } as ModelEntry;
  const deployments: ResolvedDeployment[] = weights.map((weight, i) => ({
    name: `d${i}`,
    kind: 'openai',
    upstreamModel: 'u',
    baseUrl: 'http://127.0.0.1:9/v1',
    apiKey: undefined,
    weight,
    rpm,
    tpm: undefined,
    responsesApi: false,
  }));
  const logger = createLogger('silent');
  const limiter = new RateLimiter({ memory: new MemoryRateLimitStore(systemClock), logger });
  const router = new DeploymentRouter([{ entry, deployments }], logger, limiter, systemClock);
  routers.push(router);
  const names = () => (router.order(entry) ?? []).map((d) => d.name);
  return { router, entry, names, deployments: router.deploymentsOf('m') };
}

describe('DeploymentRouter.order', () => {
  it('ordered: list order, skipping a deployment that rests', () => {
    const { names, deployments } = routerOf('ordered', [1, 1, 1]);
    expect(names()).toEqual(['d0', 'd1', 'd2']);
    deployments[0]?.health.rateLimited(performance.now(), 60_000);
    expect(names()).toEqual(['d1', 'd2']);
  });

  it('weighted: exact shares among the available, the rest by weight as failover, weight 0 never first', () => {
    const { names, deployments } = routerOf('weighted', [1, 2, 0]);
    const firsts = Array.from({ length: 9 }, () => names());
    expect(firsts.map((n) => n[0]).sort()).toEqual(['d0', 'd0', 'd0', 'd1', 'd1', 'd1', 'd1', 'd1', 'd1']);
    // Failover after the pick: the heaviest other first, the backup last.
    expect(firsts.find((n) => n[0] === 'd0')).toEqual(['d0', 'd1', 'd2']);
    expect(firsts.find((n) => n[0] === 'd1')).toEqual(['d1', 'd0', 'd2']);
    deployments[1]?.health.rateLimited(performance.now(), 60_000);
    expect(names()).toEqual(['d0', 'd2']);
    deployments[0]?.health.rateLimited(performance.now(), 60_000);
    expect(names()).toEqual(['d2']);
  });

  it('latency: untried first, then the fastest recently', () => {
    const { names, deployments } = routerOf('latency', [1, 1, 1]);
    deployments[0]?.health.succeeded(performance.now(), 80);
    deployments[2]?.health.succeeded(performance.now(), 20);
    expect(names()).toEqual(['d1', 'd2', 'd0']);
    deployments[1]?.health.succeeded(performance.now(), 50);
    expect(names()).toEqual(['d2', 'd1', 'd0']);
  });

  it('a deployment at its own RPM is moved on from, then skipped; none available is a 503 saying when to come back', async () => {
    const { router, entry, names, deployments } = routerOf('ordered', [1], 2);
    const d = deployments[0];
    if (!d) throw new Error('no deployment');
    const call = () =>
      d.complete({
        upstreamModel: 'u',
        request: { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
        promptTokens: 1,
        maxTokens: 1,
        maxTokensField: 'max_tokens',
        signal: new AbortController().signal,
      });
    // Two calls take the RPM (the upstream, unreachable here, fails them: they still count); the third is
    // refused before it is sent, and the deployment is left out of the order from then on.
    await expect(call()).rejects.toMatchObject({ code: 'upstream_unreachable' });
    await expect(call()).rejects.toMatchObject({ code: 'upstream_unreachable' });
    await expect(call()).rejects.toMatchObject({ code: 'deployment_resting', retryable: true });
    expect(names()).toEqual([]);
    const err = router.unavailable(entry);
    expect(err.code).toBe('no_deployment_available');
    // GCRA: room for one more request 60 s / 2 after the burst.
    expect(err.retryAfterMs).toBeGreaterThanOrEqual(29_000);
    expect(err.retryAfterMs).toBeLessThanOrEqual(30_000);
    expect(err.retryable).toBe(true);
  });
});
