import { writeFakeCatalogue } from './chat-setup';
import { type FakeUpstream, startFakeAnthropic, startFakeOpenAi } from './fake-upstreams';
import { createAccountWithKey } from './fixtures';
import { startTestServer, type TestServer } from './server';

/** A server whose catalogue reaches fake OpenAI and Anthropic upstreams, with a test and a live Pro key. */
export interface FakeProvidersServer {
  server: TestServer;
  upstream: FakeUpstream;
  anthropic: FakeUpstream;
  testKey: string;
  liveKey: string;
  close(): Promise<void>;
}

/**
 * What the conformance suites (chat, responses) start: the fake upstreams, the server on the fake catalogue
 * (`writeFakeCatalogue`) with a Pro rate limit no test reaches, and the two keys. `env`: the suite's own settings.
 */
export async function startFakeProvidersServer(
  env: Record<string, string> = {},
): Promise<FakeProvidersServer> {
  const upstream = await startFakeOpenAi();
  const anthropic = await startFakeAnthropic();
  const server = await startTestServer({
    env: {
      MODELS_FILE: writeFakeCatalogue(),
      OPENAI_BASE_URL: `${upstream.url}/v1`,
      ANTHROPIC_BASE_URL: anthropic.url,
      ANTHROPIC_API_KEY: 'ant-conformance',
      SIMULATOR_TOKEN_DELAY_MS: '0',
      PLAN_PRO_RPM: '100000',
      ...env,
    },
  });
  const testKey = (await createAccountWithKey(server, { plan: 'pro' })).key.key;
  const liveKey = (await createAccountWithKey(server, { plan: 'pro', kind: 'live' })).key.key;
  return {
    server,
    upstream,
    anthropic,
    testKey,
    liveKey,
    async close() {
      await server.close();
      await upstream.close();
      await anthropic.close();
    },
  };
}
