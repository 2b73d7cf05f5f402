/** The simulator's server for the tool-call and structured-output tests, and what those tests check with. */
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import OpenAI from 'openai';
import type {
  ChatCompletion,
  ChatCompletionFunctionTool,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import { afterAll, beforeAll, expect } from 'vitest';
import { libraryEncoder } from '../../src/modules/tokenizer';
import { createAccountWithKey } from './fixtures';
import { startTestServer, type TestServer } from './server';

/** Registers a server (the simulator, no pacing) for the calling file; `client` is set before its first test. */
export function useSimulatorClient(): { client: OpenAI } {
  const suite = {} as { client: OpenAI; server: TestServer };
  beforeAll(async () => {
    suite.server = await startTestServer({
      env: { SIMULATOR_TOKEN_DELAY_MS: '0', PLAN_FREE_RPM: '100000', BODY_LIMIT_BYTES: '65536' },
    });
    const key = (await createAccountWithKey(suite.server)).key.key;
    suite.client = new OpenAI({ apiKey: key, baseURL: `${suite.server.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await suite.server?.close();
  });
  return suite;
}

// Ajv is CommonJS: under ESM its class may arrive as the module's `default`.
const Ajv = (Ajv2020 as unknown as { default?: typeof Ajv2020 }).default ?? Ajv2020;
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats.default(ajv);

export function expectValid(schema: Record<string, unknown>, value: unknown): void {
  const validate = ajv.compile(schema);
  expect(validate(value), `${JSON.stringify(validate.errors)}\n${JSON.stringify(value)}`).toBe(true);
}

export const tokens = (text: string) => libraryEncoder().encode(text).length;

export const weatherParams = {
  type: 'object',
  properties: {
    city: { type: 'string', minLength: 2 },
    unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
    days: { type: 'integer', minimum: 1, maximum: 7 },
  },
  required: ['city', 'unit'],
  additionalProperties: false,
};
export const flightParams = {
  type: 'object',
  properties: {
    origin: { type: 'string' },
    destination: { type: 'string' },
    date: { type: 'string', format: 'date' },
    passengers: {
      type: 'array',
      minItems: 1,
      maxItems: 3,
      items: {
        type: 'object',
        properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0, exclusiveMaximum: 120 } },
        required: ['name', 'age'],
      },
    },
    cabin: { anyOf: [{ type: 'string', enum: ['economy', 'business'] }, { type: 'null' }] },
    flexible: { type: 'boolean' },
  },
  required: ['origin', 'destination', 'date', 'passengers', 'cabin', 'flexible'],
  additionalProperties: false,
};
export const tools: ChatCompletionFunctionTool[] = [
  {
    type: 'function',
    function: { name: 'get_weather', description: 'Current weather in a city', parameters: weatherParams },
  },
  {
    type: 'function',
    function: {
      name: 'searchFlights',
      description: 'Find flights between two airports',
      parameters: flightParams,
    },
  },
];
export const schemaOf: Record<string, Record<string, unknown>> = {
  get_weather: weatherParams,
  searchFlights: flightParams,
};

export const user = (content: string): ChatCompletionMessageParam[] => [{ role: 'user', content }];

export function onlyCall(res: ChatCompletion, index = 0): ChatCompletionMessageFunctionToolCall {
  const calls = res.choices[index]?.message.tool_calls ?? [];
  expect(calls).toHaveLength(1);
  const call = calls[0];
  if (call?.type !== 'function') throw new Error('expected a function call');
  return call;
}

/** The call's arguments, parsed, after checking them against the function's schema. */
export function validArguments(call: ChatCompletionMessageFunctionToolCall): Record<string, unknown> {
  const args = JSON.parse(call.function.arguments) as Record<string, unknown>;
  const schema = schemaOf[call.function.name];
  if (!schema) throw new Error(`unknown function ${call.function.name}`);
  expectValid(schema, args);
  return args;
}
