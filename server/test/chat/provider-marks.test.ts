import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIMULATOR_FINGERPRINT } from '../../src/modules/providers/simulator';
import { catalogueEntry, writeCatalogue } from '../helpers/chat-setup';
import {
  FAKE_FINGERPRINT,
  type FakeUpstream,
  startFakeAnthropic,
  startFakeOpenAi,
} from '../helpers/fake-upstreams';
import { createAccountWithKey } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * Who answered a chat call, as OpenAI's clients see it: `system_fingerprint` (shown and kept by SDKs and logs) on
 * the body and every chunk, and the `x-tessera-provider` header on the response, through the official SDK.
 */
describe('simulated answers are marked; upstream answers relay their own marks', () => {
  let server: TestServer;
  let openai: FakeUpstream;
  let anthropic: FakeUpstream;
  let test: OpenAI;
  let live: OpenAI;
  const messages = [{ role: 'user' as const, content: 'Name three rivers' }];

  beforeAll(async () => {
    openai = await startFakeOpenAi();
    anthropic = await startFakeAnthropic();
    server = await startTestServer({
      env: {
        MODELS_FILE: writeCatalogue([
          catalogueEntry('up-fp', 'openai', 'fingerprint'),
          catalogueEntry('up-whole-fp', 'openai', 'wholefingerprint'),
          catalogueEntry('up-ok', 'openai', 'ok'),
          catalogueEntry('up-500', 'openai', 'fail500'),
          catalogueEntry('claude-ok', 'anthropic', 'ok'),
          catalogueEntry('nowhere-ok', 'mistral', 'ok'),
        ]),
        OPENAI_BASE_URL: `${openai.url}/v1`,
        OPENAI_API_KEY: 'sk-upstream',
        ANTHROPIC_BASE_URL: anthropic.url,
        ANTHROPIC_API_KEY: 'ant-upstream',
        UPSTREAM_RETRIES: '0',
        SIMULATOR_TOKEN_DELAY_MS: '0',
        PLAN_PRO_RPM: '100000',
      },
    });
    const baseURL = `${server.url}/v1`;
    const testKey = (await createAccountWithKey(server, { plan: 'pro' })).key.key;
    const liveKey = (await createAccountWithKey(server, { plan: 'pro', kind: 'live' })).key.key;
    test = new OpenAI({ apiKey: testKey, baseURL, maxRetries: 0 });
    live = new OpenAI({ apiKey: liveKey, baseURL, maxRetries: 0 });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await openai?.close();
    await anthropic?.close();
  });

  it('a simulated completion says tessera-sim-… and x-tessera-provider: simulator', async () => {
    const { data, response } = await test.chat.completions
      .create({ model: 'up-fp', messages })
      .withResponse();
    expect(response.headers.get('x-tessera-provider')).toBe('simulator');
    expect(data.system_fingerprint).toBe(SIMULATOR_FINGERPRINT);
    expect(data.system_fingerprint).toMatch(/^tessera-sim-\w+$/);
    expect(data.choices[0]?.message.content).toBeTruthy();
    expect(openai.requests).toHaveLength(0);
  });

  it('a simulated stream says it on every chunk, and in its headers', async () => {
    const { data: stream, response } = await test.chat.completions
      .create({ model: 'up-fp', messages, stream: true, stream_options: { include_usage: true } })
      .withResponse();
    expect(response.headers.get('x-tessera-provider')).toBe('simulator');
    const fingerprints = new Set<string | undefined>();
    let chunks = 0;
    let text = '';
    for await (const chunk of stream) {
      chunks++;
      fingerprints.add(chunk.system_fingerprint);
      text += chunk.choices[0]?.delta.content ?? '';
    }
    expect(chunks).toBeGreaterThan(2);
    expect([...fingerprints]).toEqual([SIMULATOR_FINGERPRINT]);
    expect(text.length).toBeGreaterThan(0);
  });

  it("a live key's model with no upstream configured is simulated, and says so", async () => {
    const { data, response } = await live.chat.completions
      .create({ model: 'nowhere-ok', messages })
      .withResponse();
    expect(response.headers.get('x-tessera-provider')).toBe('simulator');
    expect(data.system_fingerprint).toBe(SIMULATOR_FINGERPRINT);
    const model = await live.models.retrieve('nowhere-ok');
    expect(model.owned_by).toBe('tessera-simulator (no upstream configured)');
  });

  it("an upstream's fingerprint is relayed unchanged and the header names the upstream", async () => {
    const { data, response } = await live.chat.completions
      .create({ model: 'up-fp', messages })
      .withResponse();
    expect(response.headers.get('x-tessera-provider')).toBe('openai');
    expect(data.system_fingerprint).toBe(FAKE_FINGERPRINT);

    const streamed = await live.chat.completions
      .create({ model: 'up-fp', messages, stream: true, stream_options: { include_usage: true } })
      .withResponse();
    expect(streamed.response.headers.get('x-tessera-provider')).toBe('openai');
    const fingerprints = new Set<string | undefined>();
    for await (const chunk of streamed.data) fingerprints.add(chunk.system_fingerprint);
    expect([...fingerprints]).toEqual([FAKE_FINGERPRINT]);
    expect((await live.models.retrieve('up-fp')).owned_by).toBe('openai');

    // An upstream that answers whole when asked to stream: its fingerprint is on every chunk made from it.
    const whole = await live.chat.completions
      .create({ model: 'up-whole-fp', messages, stream: true })
      .withResponse();
    const wholeFingerprints = new Set<string | undefined>();
    for await (const chunk of whole.data) wholeFingerprints.add(chunk.system_fingerprint);
    expect([...wholeFingerprints]).toEqual([FAKE_FINGERPRINT]);
  });

  it('an upstream without a fingerprint gets none made up: OpenAI-compatible and Anthropic', async () => {
    for (const [model, provider] of [
      ['up-ok', 'openai'],
      ['claude-ok', 'anthropic'],
    ] as const) {
      const { data, response } = await live.chat.completions.create({ model, messages }).withResponse();
      expect(response.headers.get('x-tessera-provider'), model).toBe(provider);
      expect(data.system_fingerprint, model).toBeUndefined();
      const streamed = await live.chat.completions.create({ model, messages, stream: true }).withResponse();
      expect(streamed.response.headers.get('x-tessera-provider'), model).toBe(provider);
      for await (const chunk of streamed.data) expect(chunk.system_fingerprint, model).toBeUndefined();
    }
  });

  it('a failed upstream call names the provider that failed; a refused request names none', async () => {
    const failed = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${live.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'up-500', messages }),
    });
    expect(failed.status).toBeGreaterThanOrEqual(500);
    expect(failed.headers.get('x-tessera-provider')).toBe('openai');

    const refused = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${live.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'no-such-model', messages }),
    });
    expect(refused.status).toBe(404);
    expect(refused.headers.get('x-tessera-provider')).toBeNull();
  });
});
