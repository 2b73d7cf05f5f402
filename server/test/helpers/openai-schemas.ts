import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';
import { parse } from 'yaml';

/** The schemas of OpenAI's own OpenAPI document that the suites need, vendored (source and refresh: its header). */
const SPEC = new URL('../fixtures/openai-openapi/schemas.yaml', import.meta.url);

type Validate = ((data: unknown) => boolean) & { errors?: unknown };

/**
 * The document is OpenAPI 3.1 but a few schemas still carry 3.0's `nullable`, which Ajv only accepts beside a
 * `type`: it becomes what 3.1 says (`null` added to the type and enum, or `anyOf` with `null` beside a $ref).
 */
function normalize(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(normalize);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) if (k !== 'nullable') out[k] = normalize(v);
  const { nullable } = node as { nullable?: unknown };
  if (nullable !== true) return out;
  if (typeof out.type !== 'string') return { anyOf: [out, { type: 'null' }] };
  out.type = [out.type, 'null'];
  if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
  return out;
}

/** Validators for the named schemas of OpenAI's document (`components.schemas.<name>`). */
export function compileOpenAiSchemas(names: readonly string[]): Record<string, Validate> {
  const doc = parse(readFileSync(SPEC, 'utf8')) as { components: { schemas: Record<string, unknown> } };
  // The whole document is one schema resource so that every `#/components/schemas/...` $ref resolves in it.
  // Ajv is CommonJS: under ESM its class may arrive as the module's `default`.
  const Ajv = (Ajv2020 as unknown as { default?: typeof Ajv2020 }).default ?? Ajv2020;
  const ajv = new Ajv({ strict: false, allErrors: true, logger: false });
  addFormats.default(ajv);
  ajv.addFormat('unixtime', true);
  ajv.addSchema({ $id: 'openai', components: normalize(doc.components) }, 'openai');
  return Object.fromEntries(
    names.map((n) => [n, ajv.compile({ $ref: `openai#/components/schemas/${n}` }) as Validate]),
  );
}

/** Asserts that `data` is valid against one of the compiled schemas, showing Ajv's errors when not. */
export function expectConforms(validators: Record<string, Validate>, schema: string, data: unknown): void {
  const validate = validators[schema];
  if (!validate) throw new Error(`no validator for ${schema}`);
  const ok = validate(data);
  expect(ok, `${schema}: ${JSON.stringify(validate.errors)}\n${JSON.stringify(data).slice(0, 500)}`).toBe(
    true,
  );
}
