import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Principal } from '../../src/modules/keys';
import type { TestServer } from './server';

/** A catalogue entry whose upstream model name selects a fake upstream's behaviour. */
export function catalogueEntry(
  id: string,
  provider: string,
  upstream: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    id,
    provider,
    upstream_model: upstream,
    context_window: 8192,
    max_output_tokens: 2048,
    description: `fake ${upstream}`,
    created: 1767225600,
    ...extra,
  };
}

/** Writes a model catalogue to a temporary file, for `MODELS_FILE`; `file`: the file's other fields (`currency`). */
export function writeCatalogue(
  models: Record<string, unknown>[],
  file: Record<string, unknown> = {},
): string {
  return writeCatalogueFile({ ...file, models });
}

/** Writes any content as a catalogue file, valid or not (tests of what start-up refuses). */
export function writeCatalogueFile(content: unknown): string {
  const file = join(mkdtempSync(join(tmpdir(), 'tessera-models-')), 'models.json');
  writeFileSync(file, JSON.stringify(content));
  return file;
}

/** A catalogue whose upstream model names select the fake upstreams' behaviours. */
export function writeFakeCatalogue(): string {
  const entry = catalogueEntry;
  return writeCatalogue([
    entry('up-ok', 'openai', 'ok'),
    entry('up-linger', 'openai', 'linger'),
    entry('up-logprobs', 'openai', 'logprobs'),
    entry('up-reasoning', 'openai', 'reasoning', { max_tokens_field: 'max_completion_tokens' }),
    entry('up-tools', 'openai', 'tools'),
    entry('up-nousage', 'openai', 'nousage'),
    entry('up-longnousage', 'openai', 'longnousage'),
    entry('up-toolsnousage', 'openai', 'toolsnousage'),
    entry('up-slow', 'openai', 'slow'),
    entry('up-stall', 'openai', 'stall'),
    entry('up-drip', 'openai', 'drip'),
    entry('up-500', 'openai', 'fail500'),
    entry('up-429', 'openai', 'fail429'),
    entry('up-408', 'openai', 'fail408'),
    entry('up-413', 'openai', 'fail413'),
    entry('up-401', 'openai', 'fail401'),
    entry('up-flaky', 'openai', 'flaky'),
    entry('up-reset', 'openai', 'reset'),
    entry('up-garbage', 'openai', 'garbage'),
    entry('up-html', 'openai', 'html'),
    entry('up-whole', 'openai', 'whole'),
    entry('up-fallback', 'openai', 'fail500', { fallback: 'up-ok' }),
    entry('up-fallback-claude', 'openai', 'fail500', { fallback: 'claude-ok' }),
    entry('claude-ok', 'anthropic', 'ok'),
    entry('claude-stall', 'anthropic', 'stall'),
    entry('claude-tools', 'anthropic', 'tools'),
    entry('claude-cached', 'anthropic', 'cached'),
  ]);
}

export interface AllowanceSpy {
  reserved: number[];
  settled: number[];
}

/** Wraps the server's allowance to record what the chat path reserves and settles. */
export function spyOnAllowance(server: TestServer): AllowanceSpy {
  const spy: AllowanceSpy = { reserved: [], settled: [] };
  const real = server.services.allowance;
  server.services.allowance = {
    async reserve(principal: Principal, tokens: number) {
      spy.reserved.push(tokens);
      const reservation = await real.reserve(principal, tokens);
      return {
        tokens: reservation.tokens,
        async settle(used: number) {
          spy.settled.push(used);
          await reservation.settle(used);
        },
      };
    },
    status: (principal: Principal) => real.status(principal),
  };
  return spy;
}

/** Polls until `check` holds (for effects that land after a response, such as settling). */
export async function eventually(check: () => boolean, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
