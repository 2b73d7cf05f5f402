import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { type AllowanceSpy, spyOnAllowance, writeFakeCatalogue } from './chat-setup';
import { type FakeUpstream, startFakeAnthropic, startFakeOpenAi } from './fake-upstreams';
import { createAccountWithKey } from './fixtures';
import { startTestServer, type TestServer } from './server';

export const OPENAI_SECRET = 'sk-upstream-secret-123';
export const ANTHROPIC_SECRET = 'ant-upstream-secret-456';

/** One server in front of a fake OpenAI-compatible upstream and a fake Anthropic one, with a live and a test key. */
export interface ProviderSuite {
  openai: FakeUpstream;
  anthropic: FakeUpstream;
  server: TestServer;
  /** The openai SDK with the live key, no retries of its own. */
  live: OpenAI;
  liveKey: string;
  testKey: string;
  spy: AllowanceSpy;
}

/**
 * Registers the suite's hooks in the calling test file (the fakes' recorded requests and the allowance spy are
 * cleared before each test); the returned object is filled in before the file's first test.
 */
export function useProviderSuite(): ProviderSuite {
  const suite = {} as ProviderSuite;
  beforeAll(async () => {
    suite.openai = await startFakeOpenAi({ slowMs: 400, dripMs: 30 });
    suite.anthropic = await startFakeAnthropic();
    suite.server = await startTestServer({
      env: {
        MODELS_FILE: writeFakeCatalogue(),
        OPENAI_BASE_URL: `${suite.openai.url}/v1`,
        OPENAI_API_KEY: OPENAI_SECRET,
        ANTHROPIC_BASE_URL: suite.anthropic.url,
        ANTHROPIC_API_KEY: ANTHROPIC_SECRET,
        MODEL_TIMEOUT_MS: '1000',
        STREAM_KEEPALIVE_MS: '100',
        UPSTREAM_RETRIES: '2',
        UPSTREAM_RETRY_BACKOFF_MS: '20',
        SIMULATOR_TOKEN_DELAY_MS: '0',
        PLAN_PRO_RPM: '100000',
      },
    });
    suite.liveKey = (await createAccountWithKey(suite.server, { plan: 'pro', kind: 'live' })).key.key;
    suite.testKey = (await createAccountWithKey(suite.server, { plan: 'pro', kind: 'test' })).key.key;
    suite.live = new OpenAI({ apiKey: suite.liveKey, baseURL: `${suite.server.url}/v1`, maxRetries: 0 });
    suite.spy = spyOnAllowance(suite.server);
  });
  afterAll(async () => {
    await suite.server?.close();
    await suite.openai?.close();
    await suite.anthropic?.close();
  });
  beforeEach(() => {
    suite.openai.requests.length = 0;
    suite.anthropic.requests.length = 0;
    suite.spy.reserved.length = 0;
    suite.spy.settled.length = 0;
  });
  return suite;
}

export const messages = [
  { role: 'system' as const, content: 'Be brief.' },
  { role: 'user' as const, content: 'Say hello' },
];

/** A streamed call with the live key through fetch, for what the SDK hides (raw events, comments). */
export function rawStream(suite: ProviderSuite, model: string): Promise<Response> {
  return fetch(`${suite.server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${suite.liveKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages, stream: true }),
  });
}

/** Every chunk of a streamed completion of `messages` with `include_usage`, read through the SDK. */
export async function streamedChunks(
  client: OpenAI,
  model: string,
): Promise<OpenAI.Chat.Completions.ChatCompletionChunk[]> {
  const stream = await client.chat.completions.create({
    model,
    messages,
    stream: true,
    stream_options: { include_usage: true },
  });
  const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
  for await (const c of stream) chunks.push(c);
  return chunks;
}
