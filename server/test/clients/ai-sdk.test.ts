/**
 * The Vercel AI SDK (`ai` with `@ai-sdk/openai`), unchanged, against the real server: chat completions and the
 * Responses API, whole and streamed, and a tool call, with a test key (the simulator).
 */
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, streamText, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountWithKey } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
let openai: ReturnType<typeof createOpenAI>;

beforeAll(async () => {
  server = await startTestServer({ env: { SIMULATOR_TOKEN_DELAY_MS: '0', PLAN_FREE_RPM: '100000' } });
  const created = await createAccountWithKey(server);
  openai = createOpenAI({ apiKey: created.key.key, baseURL: `${server.url}/v1` });
}, 60_000);
afterAll(async () => {
  await server?.close();
});

const weather = tool({
  description: 'Current weather in a city',
  inputSchema: jsonSchema<{ city: string }>({
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  }),
});

describe.each([
  ['chat completions', (id = 'tessera-fast-4k') => openai.chat(id)],
  ['the Responses API', (id = 'tessera-fast-4k') => openai.responses(id)],
])('the AI SDK over %s', (_api, model) => {
  it('generates text with its usage and a stop reason', async () => {
    const result = await generateText({ model: model(), prompt: 'Tell me about tides', maxRetries: 0 });
    expect(result.text.length).toBeGreaterThan(0);
    expect(result.finishReason).toBe('stop');
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(result.usage.outputTokens).toBeGreaterThan(0);
    expect(result.usage.totalTokens).toBe((result.usage.inputTokens ?? 0) + (result.usage.outputTokens ?? 0));
  });

  it('streams the same text as it generates, in more than one delta', async () => {
    const whole = await generateText({ model: model(), prompt: 'Explain rainbows', maxRetries: 0 });
    const result = streamText({ model: model(), prompt: 'Explain rainbows', maxRetries: 0 });
    const deltas: string[] = [];
    for await (const delta of result.textStream) deltas.push(delta);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe(whole.text);
    expect(await result.finishReason).toBe('stop');
    expect((await result.usage).outputTokens).toBe(whole.usage.outputTokens);
  });

  it('asks for a tool the model chose, with arguments that fit its schema', async () => {
    const result = await generateText({
      model: model(),
      prompt: 'What is the weather in Paris?',
      tools: { get_weather: weather },
      toolChoice: 'required',
      maxRetries: 0,
    });
    expect(result.finishReason).toBe('tool-calls');
    expect(result.toolCalls).toHaveLength(1);
    const [call] = result.toolCalls;
    if (!call) throw new Error('no tool call');
    expect(call.toolName).toBe('get_weather');
    expect(typeof (call.input as { city?: unknown }).city).toBe('string');
  });

  it("surfaces a refused request as the SDK's error with our status and message", async () => {
    const failing = generateText({ model: model('no-such-model'), prompt: 'hi', maxRetries: 0 });
    await expect(failing).rejects.toMatchObject({
      statusCode: 404,
      message: expect.stringContaining('no-such-model'),
    });
  });
});
