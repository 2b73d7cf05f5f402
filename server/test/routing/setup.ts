import OpenAI from 'openai';
import { catalogueEntry } from '../helpers/chat-setup';
import type { FakeDeployment } from '../helpers/fake-deployments';
import type { TestServer } from '../helpers/server';

/** A catalogue entry routed across `deployments` (each named after its fake, its key in `<NAME>_API_KEY`). */
export function routedEntry(
  id: string,
  deployments: { fake: FakeDeployment; weight?: number }[],
  routing: Record<string, unknown> = {},
): Record<string, unknown> {
  return catalogueEntry(id, 'openai', 'catalogue-model', {
    deployments: deployments.map(({ fake, weight }) => ({
      name: fake.name,
      base_url: fake.url,
      api_key_env: keyVariable(fake),
      upstream_model: `${fake.name}-model`,
      ...(weight !== undefined && { weight }),
    })),
    routing,
  });
}

export function keyVariable(fake: FakeDeployment): string {
  return `${fake.name.toUpperCase().replaceAll('-', '_')}_API_KEY`;
}

/** The environment holding each fake's key (`key-<name>`). */
export function keysOf(fakes: FakeDeployment[]): Record<string, string> {
  return Object.fromEntries(fakes.map((f) => [keyVariable(f), `key-${f.name}`]));
}

/** Every fake back to answering, its calls forgotten. */
export function resetFakes(fakes: FakeDeployment[]): void {
  for (const f of fakes) {
    f.mode = 'ok';
    f.retryAfter = 1;
    f.calls.length = 0;
  }
}

export const messages = [{ role: 'user' as const, content: 'Say hello' }];

/** A non-streamed call through the SDK: its text and who answered (`x-tessera-provider`). */
export async function ask(
  client: OpenAI,
  model: string,
): Promise<{ text: string | null; provider: string | null; requestId: string | null }> {
  const { data, response } = await client.chat.completions.create({ model, messages }).withResponse();
  return {
    text: data.choices[0]?.message.content ?? null,
    provider: response.headers.get('x-tessera-provider'),
    requestId: response.headers.get('x-request-id'),
  };
}

/** The SDK with `key`, no retries of its own (each call is one call to the gateway). */
export function client(server: TestServer, key: string): OpenAI {
  return new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
}
