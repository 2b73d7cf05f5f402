/** Bad routing configuration stops the real server's start-up, naming each problem and never a key. */
import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { catalogueEntry, writeCatalogue } from '../helpers/chat-setup';
import { failedStart, newDataDir } from '../helpers/process';

/** Runs the server from its sources (as `pnpm dev`) on an empty data folder: its exit code and its output. */
async function start(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const dataDir = newDataDir('routing', { empty: true });
  try {
    return await failedStart(dataDir, { METRICS_PORT: 'off', ...env });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const SECRET = 'sk-routing-secret-never-printed';

describe('routing configuration at start-up', () => {
  it('a deployment with no key, a negative weight, a URL that is not http(s); then an unknown provider and an unset key variable: exit 1, each named', async () => {
    const base = { base_url: 'https://east.example.com/v1', api_key_env: 'EAST_API_KEY' };
    const [schema, resolved] = await Promise.all([
      start({
        MODELS_FILE: writeCatalogue([
          catalogueEntry('routed', 'openai', 'gpt', {
            deployments: [
              { base_url: 'https://a.example.com/v1' },
              { ...base, weight: -2 },
              { ...base, base_url: 'file:///etc/passwd' },
            ],
          }),
        ]),
        EAST_API_KEY: SECRET,
      }),
      start({
        MODELS_FILE: writeCatalogue([
          catalogueEntry('routed', 'openai', 'gpt', {
            deployments: [
              { ...base, provider: 'azure' },
              { ...base, name: 'west', api_key_env: 'WEST_API_KEY' },
            ],
          }),
        ]),
        EAST_API_KEY: SECRET,
        WEST_API_KEY: '',
      }),
    ]);
    expect(schema.code).toBe(1);
    expect(schema.output).toContain('Invalid model catalogue');
    expect(schema.output).toMatch(/models\.0\.deployments\.0: a deployment needs its key/);
    expect(schema.output).toMatch(/models\.0\.deployments\.1\.weight: /);
    expect(schema.output).toMatch(
      /models\.0\.deployments\.2\.base_url: must be an http:\/\/ or https:\/\/ URL/,
    );
    expect(resolved.code).toBe(1);
    expect(resolved.output).toContain('Invalid model routing');
    expect(resolved.output).toContain("model 'routed' deployment 0: unknown provider 'azure'");
    expect(resolved.output).toContain(
      "model 'routed' deployment 1 ('west'): its key variable WEST_API_KEY is not set",
    );
    expect(schema.output + resolved.output).not.toContain(SECRET);
    expect(schema.output + resolved.output).not.toMatch(/running at/);
  }, 90_000);

  it('a negative price; then a repeated deployment name and weighted routing with every weight 0: exit 1, each named', async () => {
    const base = { base_url: 'https://east.example.com/v1', api_key_env: 'EAST_API_KEY' };
    const [prices, routing] = await Promise.all([
      start({
        MODELS_FILE: writeCatalogue([
          catalogueEntry('priced', 'openai', 'gpt', {
            pricing: [{ from: '2026-01-01', input: -1, output: 2 }],
          }),
        ]),
      }),
      start({
        MODELS_FILE: writeCatalogue([
          catalogueEntry('twice', 'openai', 'gpt', {
            deployments: [
              { ...base, name: 'east' },
              { ...base, name: 'east' },
            ],
          }),
          catalogueEntry('weightless', 'openai', 'gpt', {
            deployments: [
              { ...base, name: 'a', weight: 0 },
              { ...base, name: 'b', weight: 0 },
            ],
            routing: { strategy: 'weighted' },
          }),
        ]),
        EAST_API_KEY: SECRET,
      }),
    ]);
    expect(prices.code).toBe(1);
    expect(prices.output).toContain('Invalid model catalogue');
    expect(prices.output).toMatch(/models\.0\.pricing\.0\.input: /);
    expect(routing.code).toBe(1);
    expect(routing.output).toContain('Invalid model routing');
    expect(routing.output).toContain(
      "model 'twice' deployment 1 ('east'): the name 'east' is already another deployment's of this model",
    );
    expect(routing.output).toContain(
      "model 'weightless': strategy 'weighted' needs a deployment of weight above 0",
    );
    expect(prices.output + routing.output).not.toContain(SECRET);
    expect(prices.output + routing.output).not.toMatch(/running at/);
  }, 90_000);
});
