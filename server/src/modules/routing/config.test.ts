import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ModelCatalogue } from '../models';
import { resolveDeployments } from './config';

function catalogueOf(deployments: unknown[], extra: Record<string, unknown> = {}): ModelCatalogue {
  const file = join(mkdtempSync(join(tmpdir(), 'tessera-routing-')), 'models.json');
  const entry = {
    id: 'routed',
    provider: 'openai',
    upstream_model: 'gpt',
    context_window: 8192,
    max_output_tokens: 1024,
    description: '',
    created: 0,
    deployments,
    ...extra,
  };
  writeFileSync(file, JSON.stringify({ models: [entry] }));
  return ModelCatalogue.fromFile(file);
}

const good = { base_url: 'https://east.example.com/v1', api_key_env: 'EAST_API_KEY' };

describe('deployments in the catalogue', () => {
  it('takes responses_api on OpenAI-compatible deployments only, and on each deployment rather than the model', () => {
    const [routed] = resolveDeployments(
      catalogueOf([
        { ...good, name: 'a', responses_api: true },
        { ...good, name: 'b' },
      ]),
      { EAST_API_KEY: 'sk-east' },
    );
    expect(routed?.deployments.map((d) => d.responsesApi)).toEqual([true, false]);
    expect(() =>
      resolveDeployments(
        catalogueOf([{ ...good, name: 'claude', provider: 'anthropic', responses_api: true }], {
          responses_api: true,
        }),
        { EAST_API_KEY: 'sk-east' },
      ),
    ).toThrow(
      /deployment 0 \('claude'\): responses_api is for OpenAI-compatible upstreams.*model 'routed': responses_api goes on each deployment/,
    );
  });

  it('takes the model’s provider and upstream model by default, the key from its variable, and names it by host', () => {
    const [routed] = resolveDeployments(catalogueOf([good, { ...good, name: 'b', weight: 0 }]), {
      EAST_API_KEY: 'sk-east',
    });
    expect(routed?.deployments).toEqual([
      expect.objectContaining({
        name: 'openai@east.example.com',
        kind: 'openai',
        upstreamModel: 'gpt',
        apiKey: 'sk-east',
        weight: 1,
      }),
      expect.objectContaining({ name: 'b', weight: 0 }),
    ]);
  });

  it('refuses a deployment with no key, a negative weight, a base URL that is not http(s) or a key written inline, naming each', () => {
    expect(() =>
      catalogueOf([
        { base_url: 'https://a.example.com' },
        { ...good, weight: -1 },
        { ...good, base_url: 'ftp://files.example.com' },
        { ...good, api_key: 'sk-inline-secret' },
        { ...good, api_key_env: 'DATABASE_URL' },
      ]),
    ).toThrow(
      /models\.0\.deployments\.0: a deployment needs its key.*models\.0\.deployments\.1\.weight: .*>=0.*models\.0\.deployments\.2\.base_url: must be an http:\/\/ or https:\/\/ URL.*models\.0\.deployments\.3\.api_key: never write a key in the catalogue.*models\.0\.deployments\.4\.api_key_env: must name an environment variable ending in _API_KEY/,
    );
    try {
      catalogueOf([{ ...good, api_key: 'sk-inline-secret' }]);
    } catch (err) {
      expect((err as Error).message).not.toContain('sk-inline-secret');
    }
  });

  it('refuses an unknown provider, an unset key variable and a repeated name, without ever printing a key', () => {
    const catalogue = catalogueOf([
      { ...good, provider: 'azure' },
      { ...good, name: 'west', api_key_env: 'WEST_API_KEY' },
      { ...good, name: 'west', api_key_env: 'EAST_API_KEY' },
    ]);
    let message = '';
    try {
      resolveDeployments(catalogue, { EAST_API_KEY: 'sk-east-secret' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/^Invalid model routing: /);
    expect(message).toContain("model 'routed' deployment 0: unknown provider 'azure'");
    expect(message).toContain(
      "model 'routed' deployment 1 ('west'): its key variable WEST_API_KEY is not set",
    );
    expect(message).toContain("deployment 2 ('west'): the name 'west' is already another deployment's");
    expect(message).not.toContain('sk-east-secret');
  });

  it('takes keyless: true for a server without keys, and refuses it next to a key', () => {
    const [routed] = resolveDeployments(
      catalogueOf([{ base_url: 'http://127.0.0.1:8000/v1', keyless: true }]),
      {},
    );
    expect(routed?.deployments[0]?.apiKey).toBeUndefined();
    expect(() => catalogueOf([{ ...good, keyless: true }])).toThrow(/either api_key_env or keyless/);
  });

  it('refuses routing on an embedding model', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'tessera-routing-')), 'models.json');
    writeFileSync(
      file,
      JSON.stringify({
        models: [
          {
            id: 'e',
            type: 'embedding',
            provider: 'openai',
            upstream_model: 'x',
            context_window: 10,
            dimensions: 4,
            description: '',
            created: 0,
            deployments: [good],
          },
        ],
      }),
    );
    expect(() => ModelCatalogue.fromFile(file)).toThrow(/embedding models are not routed/);
  });
});
