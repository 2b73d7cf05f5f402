import type { Response } from 'express';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../lib/clock';
import { isAuthenticated, RequestContext, refusedBeforeModel } from './request-context';

describe('RequestContext', () => {
  it('starts with an empty usage record and no caller', () => {
    const context = new RequestContext('req_1', 12.5, systemClock);
    expect(context).toMatchObject({ requestId: 'req_1', startedAt: 12.5, route: null, keyHash: null });
    expect(isAuthenticated(context)).toBe(false);
    expect({ ...context.usage }).toEqual({
      model: null,
      provider: null,
      promptTokens: null,
      completionTokens: null,
      cache: null,
      savedMicros: null,
      errorType: null,
      errorCode: null,
      errorMessage: null,
      status: null,
    });
  });

  it('records what a call consumed, and the first cause of a failure when asked to keep it', () => {
    const { usage } = new RequestContext('req_2', 0, systemClock);
    usage.consumed({ model: 'm', promptTokens: 3, completionTokens: 4 });
    usage.failed({ type: 'server_error', code: 'upstream_error', message: 'first' });
    usage.failed({ type: 'graphql_error', code: 'X', message: 'second' }, { first: true });
    expect(usage).toMatchObject({ model: 'm', promptTokens: 3, completionTokens: 4, errorMessage: 'first' });
    usage.failed({ type: 'graphql_error', code: null, message: 'third' });
    expect(usage).toMatchObject({ errorType: 'graphql_error', errorCode: null, errorMessage: 'third' });
  });

  it("runs metering's hook once when the handler ends, and none when it was never set", () => {
    const context = new RequestContext('req_3', 0, systemClock);
    context.handlerRunning = true;
    context.handlerEnded();
    expect(context.handlerRunning).toBe(false);
    const seen: unknown[] = [];
    const res = {} as Response;
    context.handlerRunning = true;
    context.whenHandlerDone((r) => seen.push(r), res);
    context.handlerEnded();
    context.handlerEnded();
    expect(seen).toEqual([res]);
    expect(seen[0]).toBe(res);
  });

  it('meters a call refused before any model with its model and 0 tokens', () => {
    const error = new Error('quota');
    expect(refusedBeforeModel('tessera-fast-4k', error)).toEqual({
      ok: false,
      error,
      usage: { model: 'tessera-fast-4k', promptTokens: 0, completionTokens: 0 },
    });
  });
});
