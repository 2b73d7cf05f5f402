/** What the gateway does when upstreams are slow, fail or are left: timeouts, upstream errors, retries, fallback, keep-alives and client aborts. */
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { type AllowanceSpy, eventually } from '../helpers/chat-setup';
import { FAKE_TEXT, type FakeUpstream } from '../helpers/fake-upstreams';
import { createAccount, createKey } from '../helpers/fixtures';
import { messages, OPENAI_SECRET, rawStream, useProviderSuite } from '../helpers/provider-suite';
import type { TestServer } from '../helpers/server';

const suite = useProviderSuite();
let openai: FakeUpstream;
let server: TestServer;
let live: OpenAI;
let liveKey: string;
let spy: AllowanceSpy;
beforeAll(() => {
  ({ openai, server, live, liveKey, spy } = suite);
});

describe('timeouts, failures, retries and fallback', () => {
  it('a silent model → 500 model_timeout naming the timeout', async () => {
    const err = await live.chat.completions.create({ model: 'up-stall', messages }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.InternalServerError);
    const e = err as InstanceType<typeof OpenAI.InternalServerError>;
    expect(e.status).toBe(500);
    expect(e.code).toBe('model_timeout');
    expect(e.type).toBe('server_error');
    expect(e.message).toContain('1000 ms');
    // The message and the header give the same advice (the message once said "Please try again").
    expect(e.message).toMatch(/not to be retried at once/i);
    // The SDK retries a 500 unless told not to: a call that already waited the whole timeout is not retried.
    expect(e.headers?.get('x-should-retry')).toBe('false');
    const retrying = new OpenAI({ apiKey: liveKey, baseURL: `${server.url}/v1`, maxRetries: 2 });
    const before = openai.requests.length;
    await expect(retrying.chat.completions.create({ model: 'up-stall', messages })).rejects.toThrow(
      /1000 ms/,
    );
    expect(openai.requests.length - before).toBe(1);
  });

  it('a stream that keeps coming is not cut by the timeout: it measures silence, not length', async () => {
    // A word every 30 ms for 12 s against a 1000 ms timeout: read for 1.8 s, well past one timeout.
    const controller = new AbortController();
    const res = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${liveKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'up-drip', messages, stream: true }),
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    const started = performance.now();
    let text = '';
    while (performance.now() - started < 1_800) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    controller.abort();
    expect(performance.now() - started).toBeGreaterThanOrEqual(1_800);
    expect(text).not.toContain('model_timeout');
    expect(text).toContain('"content":" w40"');
  });

  it('a stream that stalls after starting ends with an error event and no [DONE]', async () => {
    const res = await rawStream(suite, 'up-stall');
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('"content":"Hello"');
    expect(text).toMatch(
      /data: \{"error":\{"message":"The model did not respond within the timeout of 1000 ms/,
    );
    expect(text).toContain('"code":"model_timeout"');
    expect(text).not.toContain('[DONE]');
    const stream = await live.chat.completions.create({ model: 'claude-stall', messages, stream: true });
    const failure = await (async () => {
      for await (const _ of stream) {
        // drain until the error event
      }
    })().catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
  });

  it('upstream 429 → our 503 with retry advice; upstream 500 → 502, retried, no secret leaked', async () => {
    const limited = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${liveKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'up-429', messages }),
    });
    expect(limited.status).toBe(503);
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(limited.headers.get('retry-after-ms')).toBe('1000');
    expect(limited.headers.get('x-should-retry')).toBe('true');
    expect(((await limited.json()) as { error: { code: string } }).error.code).toBe('upstream_overloaded');

    openai.requests.length = 0;
    const failed = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${liveKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'up-500', messages }),
    });
    expect(failed.status).toBe(502);
    expect(failed.headers.get('x-should-retry')).toBe('true');
    const text = await failed.text();
    expect(text).not.toContain(OPENAI_SECRET);
    expect(text).toContain('upstream_error');
    expect(openai.requests).toHaveLength(3);
    await eventually(() => spy.settled.length === 2);
    expect(spy.settled).toEqual([0, 0]);
  });

  it("an upstream's 408 is retried like a 5xx; its 413 is the request's size; its 401 is Tessera's configuration", async () => {
    const status = async (model: string) => {
      openai.requests.length = 0;
      const err = await live.chat.completions.create({ model, messages }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.APIError);
      const e = err as InstanceType<typeof OpenAI.APIError>;
      return {
        status: e.status,
        code: e.code,
        retry: e.headers?.get('x-should-retry'),
        calls: openai.requests.length,
      };
    };
    expect(await status('up-408')).toEqual({ status: 502, code: 'upstream_error', retry: 'true', calls: 3 });
    expect(await status('up-413')).toEqual({
      status: 413,
      code: 'upstream_request_too_large',
      retry: 'false',
      calls: 1,
    });
    expect(await status('up-401')).toEqual({
      status: 502,
      code: 'upstream_rejected',
      retry: 'false',
      calls: 1,
    });
  });

  it('connection reset → 502 upstream_unreachable; a 200 that is not JSON → 502 upstream_error', async () => {
    const err = await live.chat.completions.create({ model: 'up-reset', messages }).catch((e: unknown) => e);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect((err as InstanceType<typeof OpenAI.APIError>).code).toBe('upstream_unreachable');
    const garbage = await live.chat.completions
      .create({ model: 'up-garbage', messages })
      .catch((e: unknown) => e);
    expect((garbage as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect((garbage as InstanceType<typeof OpenAI.APIError>).code).toBe('upstream_error');
  });

  it('a 200 that cannot become a stream fails before the first byte: retried, then a 502, not a broken stream', async () => {
    for (const model of ['up-html', 'up-garbage']) {
      openai.requests.length = 0;
      const err = await live.chat.completions
        .create({ model, messages, stream: true })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.APIError);
      expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
      expect((err as InstanceType<typeof OpenAI.APIError>).code).toBe('upstream_error');
      // Our two retries came first: a failure before the first byte is retried like a 5xx.
      expect(openai.requests).toHaveLength(3);
    }
  });

  it('retries a transient failure before the first byte, then answers', async () => {
    const res = await live.chat.completions.create({ model: 'up-flaky', messages, stream: true });
    let text = '';
    for await (const c of res) text += c.choices[0]?.delta.content ?? '';
    expect(text).toBe(FAKE_TEXT);
    expect(openai.requests).toHaveLength(2);
  });

  it('falls back to the configured model when the first one keeps failing', async () => {
    const res = await live.chat.completions.create({ model: 'up-fallback', messages });
    expect(res.model).toBe('up-ok');
    expect(res.choices[0]?.message.content).toBe(FAKE_TEXT);
    expect(openai.requests.map((r) => r.body.model)).toEqual(['fail500', 'fail500', 'fail500', 'ok']);
  });

  it('never falls back to a model the key is not allowed to use', async () => {
    const account = await createAccount(server, { plan: 'pro' });
    const limited = await createKey(server, account.id, 'live', 'limited', { models: ['up-fallback'] });
    const client = new OpenAI({ apiKey: limited.key, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const err = await client.chat.completions
      .create({ model: 'up-fallback', messages })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBeGreaterThanOrEqual(500);
    expect(openai.requests.map((r) => r.body.model)).toEqual(['fail500', 'fail500', 'fail500']);
  });

  it("the SDK's own retries on our 5xx reach us (x-should-retry honoured)", async () => {
    const retrying = new OpenAI({ apiKey: liveKey, baseURL: `${server.url}/v1`, maxRetries: 1 });
    const err = await retrying.chat.completions
      .create({ model: 'up-500', messages })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.InternalServerError);
    // Two SDK attempts, each retried twice by Tessera before the first byte.
    expect(openai.requests).toHaveLength(6);
  });
});

describe("the openai SDK's retries on our 503", () => {
  it('waits for our retry-after, then tries again', async () => {
    const retrying = new OpenAI({ apiKey: liveKey, baseURL: `${server.url}/v1`, maxRetries: 1 });
    const started = performance.now();
    const err = await retrying.chat.completions
      .create({ model: 'up-429', messages })
      .catch((e: unknown) => e);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(503);
    // retry-after: 1 → the SDK waited about a second between its two attempts (each retried twice by Tessera).
    expect(performance.now() - started).toBeGreaterThan(900);
    expect(openai.requests).toHaveLength(6);
  });
});

describe('streams: keep-alive and client abort', () => {
  it('sends comment keep-alives while the model is silent', async () => {
    const text = await (await rawStream(suite, 'up-slow')).text();
    expect(text).toMatch(/^: keep-alive$/m);
    expect(text).toContain('data: [DONE]');
  });

  it('a client that disconnects aborts the upstream call, and the tokens so far are settled', async () => {
    const controller = new AbortController();
    const stream = await live.chat.completions.create(
      { model: 'up-drip', messages, stream: true },
      { signal: controller.signal },
    );
    let received = 0;
    let abortedAt = 0;
    await (async () => {
      for await (const c of stream) {
        if (c.choices[0]?.delta.content) received += 1;
        if (received === 5) {
          abortedAt = performance.now();
          controller.abort();
        }
      }
    })().catch(() => undefined);
    await eventually(() => openai.aborts.length > 0);
    // The upstream connection closed promptly: p99 under 10 ms on a quiet machine (bench/gateway/abort.ts); the
    // bound is loose for a shared one.
    expect((openai.aborts.at(-1) ?? 0) - abortedAt).toBeLessThan(1_000);
    await eventually(() => spy.settled.length === 1);
    // Prompt tokens (Tessera's count) plus at least the five words the client saw.
    expect(spy.settled[0]).toBeGreaterThanOrEqual(5 + 5);
    expect(spy.settled[0]).toBeLessThan(100);
  });
});
