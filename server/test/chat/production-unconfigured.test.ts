import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogueEntry, writeCatalogue } from '../helpers/chat-setup';
import { type FakeUpstream, startFakeAnthropic } from '../helpers/fake-upstreams';
import { createAccountWithKey } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * In production a live key never gets a simulated answer passed off as a model's: a model whose provider has no
 * configuration is a 503 naming what to set, unless its fallback's provider is configured. Test keys keep the
 * simulator.
 */
describe('NODE_ENV=production: live keys on a model without its upstream', () => {
  let server: TestServer;
  let anthropic: FakeUpstream;
  let live: OpenAI;
  let test: OpenAI;
  let liveKey: string;
  const messages = [{ role: 'user' as const, content: 'Name three rivers' }];

  beforeAll(async () => {
    anthropic = await startFakeAnthropic();
    server = await startTestServer({
      env: {
        NODE_ENV: 'production',
        MODELS_FILE: writeCatalogue([
          catalogueEntry('gpt-nowhere', 'openai', 'ok'),
          catalogueEntry('gpt-with-fallback', 'openai', 'ok', { fallback: 'claude-ok' }),
          catalogueEntry('claude-ok', 'anthropic', 'ok'),
          {
            ...catalogueEntry('embed-nowhere', 'openai', 'text-embedding-3-small'),
            type: 'embedding',
            dimensions: 32,
            max_output_tokens: undefined,
          },
        ]),
        ANTHROPIC_BASE_URL: anthropic.url,
        ANTHROPIC_API_KEY: 'ant-upstream',
        UPSTREAM_RETRIES: '0',
        SIMULATOR_TOKEN_DELAY_MS: '0',
      },
    });
    const baseURL = `${server.url}/v1`;
    liveKey = (await createAccountWithKey(server, { plan: 'pro', kind: 'live' })).key.key;
    const testKey = (await createAccountWithKey(server, { plan: 'pro' })).key.key;
    live = new OpenAI({ apiKey: liveKey, baseURL, maxRetries: 0 });
    test = new OpenAI({ apiKey: testKey, baseURL, maxRetries: 0 });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await anthropic?.close();
  });

  it('a live call is a 503 provider_not_configured naming the variable, not to be retried', async () => {
    const res = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${liveKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-nowhere', messages }),
    });
    expect(res.status).toBe(503);
    expect(res.headers.get('x-should-retry')).toBe('false');
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('provider_not_configured');
    expect(body.error.message).toMatch(/'openai' provider.*OPENAI_API_KEY/);
  });

  it('the official SDK sees the same 503, streaming or not', async () => {
    const whole = live.chat.completions.create({ model: 'gpt-nowhere', messages });
    await expect(whole).rejects.toMatchObject({ status: 503, code: 'provider_not_configured' });
    const streamed = live.chat.completions.create({ model: 'gpt-nowhere', messages, stream: true });
    await expect(streamed).rejects.toMatchObject({ status: 503, code: 'provider_not_configured' });
  });

  it('a model whose fallback has its upstream is answered by the fallback', async () => {
    const done = await live.chat.completions.create({ model: 'gpt-with-fallback', messages });
    expect(done.model).toBe('claude-ok');
    expect(done.choices[0]?.message.content).toBeTruthy();
  });

  it('/v1/models says the provider is not configured, not that the simulator serves it', async () => {
    const models = await live.models.list();
    const owner = models.data.find((m) => m.id === 'gpt-nowhere')?.owned_by;
    expect(owner).toBe('openai (not configured)');
  });

  it('a test key keeps the simulator', async () => {
    const done = await test.chat.completions.create({ model: 'gpt-nowhere', messages });
    expect(done.choices[0]?.message.content).toBeTruthy();
    expect(done.system_fingerprint).toMatch(/^tessera-sim/);
  });

  it('embeddings likewise: 503 for a live key, the simulator for a test key', async () => {
    const res = await fetch(`${server.url}/v1/embeddings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${liveKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'embed-nowhere', input: 'Name three rivers' }),
    });
    expect(res.status).toBe(503);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('provider_not_configured');
    expect(body.error.message).toMatch(/'embed-nowhere' is served by the 'openai' provider/);
    const simulated = await test.embeddings.create({ model: 'embed-nowhere', input: 'Name three rivers' });
    expect(simulated.data[0]?.embedding).toHaveLength(32);
  });
});
