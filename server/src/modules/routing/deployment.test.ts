import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../errors';
import { CallAbortController } from '../../lib/call-abort';
import type { ChatProvider, ProviderCall } from '../providers';
import { Deployment, failsOver } from './deployment';
import { DeploymentHealth } from './health';
import { BreakerSpec } from './schema';

/** A provider whose calls wait until the call's signal is aborted, then fail with what the signal says. */
const silent: ChatProvider = {
  name: 'silent',
  complete: (call) =>
    new Promise((_, reject) => call.signal.addEventListener('abort', () => reject(call.signal.reason))),
  stream: (call) =>
    new Promise((_, reject) => call.signal.addEventListener('abort', () => reject(call.signal.reason))),
};

function failing(err: unknown): ChatProvider {
  return { name: 'failing', complete: () => Promise.reject(err), stream: () => Promise.reject(err) };
}

function deploymentOf(provider: ChatProvider, attemptTimeoutMs = 0) {
  const health = new DeploymentHealth(BreakerSpec.parse({ failures: 1, cooldown_ms: 60_000 }));
  const transitions: string[] = [];
  const deployment = new Deployment('d', 'upstream-d', 1, health, provider, attemptTimeoutMs, (_, t) => {
    transitions.push(String(t));
  });
  return { deployment, health, transitions };
}

function callOf(abort: CallAbortController): ProviderCall {
  return {
    upstreamModel: 'catalogue-model',
    request: { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
    promptTokens: 3,
    maxTokens: 10,
    maxTokensField: 'max_tokens',
    signal: abort.signal,
  };
}

describe('Deployment', () => {
  it("counts the model timeout as the deployment's failure, and the client leaving as nothing", async () => {
    const timedOut = deploymentOf(silent);
    const abort = new CallAbortController();
    const pending = timedOut.deployment.complete(callOf(abort));
    abort.abort(new ServiceError('timeout', 'model timeout', { code: 'model_timeout' }));
    await expect(pending).rejects.toThrow('model timeout');
    expect(timedOut.health.state).toBe('open');
    expect(timedOut.transitions).toEqual(['opened']);
    // Reached later in a call's order while open: passed over, not called, and not made its probe early.
    const resting = await timedOut.deployment
      .complete(callOf(new CallAbortController()))
      .catch((e: unknown) => e);
    expect((resting as ServiceError).code).toBe('deployment_resting');
    expect(failsOver(resting)).toBe(true);
    expect(timedOut.health.state).toBe('open');

    const left = deploymentOf(silent);
    const gone = new CallAbortController();
    const streaming = left.deployment.stream(callOf(gone));
    gone.abort(new ServiceError('invalid_request', 'client closed', { code: 'client_closed' }));
    await expect(streaming).rejects.toThrow('client closed');
    expect(left.health.state).toBe('closed');
    expect(left.health.consecutiveFailures).toBe(0);
  });

  it('an attempt past its own timeout fails over with upstream_timeout, the call itself still alive', async () => {
    const { deployment, health } = deploymentOf(silent, 30);
    const abort = new CallAbortController();
    const call = callOf(abort);
    const err = await deployment.complete(call).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).code).toBe('upstream_timeout');
    expect(failsOver(err)).toBe(true);
    expect(abort.signal.aborted).toBe(false);
    expect(call.upstreamModel).toBe('upstream-d');
    expect(health.state).toBe('open');
  });

  it('rests on a 429 for its retry-after; a request the upstream found invalid is neither a failure nor moved on from', async () => {
    const limited = deploymentOf(
      failing(
        new ServiceError('unavailable', 'slow down', { code: 'upstream_overloaded', retryAfterMs: 5_000 }),
      ),
    );
    await expect(limited.deployment.complete(callOf(new CallAbortController()))).rejects.toThrow('slow down');
    expect(limited.health.available(performance.now())).toBe(false);
    expect(limited.health.state).toBe('closed');

    const invalid = new ServiceError('invalid_request', 'bad', { code: 'upstream_invalid_request' });
    const refused = deploymentOf(failing(invalid));
    await expect(refused.deployment.complete(callOf(new CallAbortController()))).rejects.toBe(invalid);
    expect(failsOver(invalid)).toBe(false);
    expect(refused.health.state).toBe('closed');
    expect(failsOver(new ServiceError('upstream', 'no', { code: 'upstream_rejected' }))).toBe(true);
  });
});
