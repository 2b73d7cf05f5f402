import { ChatCompletionRequest } from '@tessera/shared';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseChatRequest, plainRequest } from './validate';

// Values near each parameter's bounds and of the wrong types, so that both answers of plainRequest come up often.
const scalar = fc.oneof(
  fc.constantFrom(null, undefined, true, false, '', 'x', 0, 1, 2, 4, 8, 9, -1, -2, -2.5, 0.5, 1.5, 2.5, 1e21),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -3, max: 3 }),
  fc.integer({ min: -10, max: 10 }),
  fc.constant(Number.MAX_SAFE_INTEGER + 2),
  fc.string({ maxLength: 3 }),
  fc.array(fc.string({ maxLength: 2 }), { maxLength: 5 }),
  fc.dictionary(fc.constantFrom('include_usage', 'type', 'other'), fc.constantFrom(true, 'yes', null, 1)),
);
/** Mostly absent, so that a whole request is often valid. */
const sometimes = <T>(values: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 5, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: values });
const message = fc.record(
  {
    role: fc.oneof(
      fc.constantFrom('system', 'developer', 'user', 'assistant'),
      fc.constantFrom('tool', 'function', 'robot', 3),
    ),
    content: fc.oneof(
      { weight: 6, arbitrary: fc.string({ maxLength: 8 }) },
      { weight: 1, arbitrary: fc.constantFrom(null, 5, []) },
      { weight: 1, arbitrary: fc.constant([{ type: 'text', text: 'hi' }]) },
    ),
    name: sometimes(fc.oneof(fc.string({ maxLength: 4 }), fc.constant(7))),
    tool_call_id: sometimes(fc.string({ maxLength: 4 })),
    extra: sometimes(scalar),
  },
  { requiredKeys: ['role', 'content'] },
);
const request = fc.record(
  {
    model: fc.oneof({ weight: 8, arbitrary: fc.constant('m') }, { weight: 1, arbitrary: scalar }),
    messages: fc.oneof(
      { weight: 8, arbitrary: fc.array(message, { maxLength: 4 }) },
      { weight: 1, arbitrary: scalar },
    ),
    temperature: sometimes(scalar),
    top_p: sometimes(scalar),
    n: sometimes(scalar),
    stop: sometimes(scalar),
    max_tokens: sometimes(scalar),
    max_completion_tokens: sometimes(scalar),
    presence_penalty: sometimes(scalar),
    frequency_penalty: sometimes(scalar),
    stream: sometimes(scalar),
    stream_options: sometimes(scalar),
    seed: sometimes(scalar),
    user: sometimes(scalar),
    tools: sometimes(scalar),
    response_format: sometimes(scalar),
    logprobs: sometimes(scalar),
  },
  { requiredKeys: ['model', 'messages'] },
);

describe('plainRequest (the schema check skipped for plain requests)', () => {
  it('accepts only what the schema accepts, and the schema returns it unchanged', () => {
    let accepted = 0;
    fc.assert(
      fc.property(request, (body) => {
        // As JSON.parse gives it: no undefined values.
        const json = JSON.parse(JSON.stringify(body)) as Record<string, unknown>;
        if (!plainRequest(json)) return;
        accepted += 1;
        const parsed = ChatCompletionRequest.safeParse(json);
        expect(parsed.success).toBe(true);
        expect(parsed.data).toStrictEqual(json);
      }),
      { numRuns: 20_000 },
    );
    // The generator reaches the fast path often enough for the property to mean something.
    expect(accepted).toBeGreaterThan(50);
  });

  it('leaves the errors to the schema: a plain request with one bad parameter is refused as before', async () => {
    const plain = { model: 'm', messages: [{ role: 'user', content: 'hi' }], temperature: 0.5 };
    expect(plainRequest(plain)).toBe(true);
    await expect(parseChatRequest(plain)).resolves.toBe(plain);
    await expect(parseChatRequest({ ...plain, temperature: 3 })).rejects.toMatchObject({
      param: 'temperature',
    });
    await expect(
      parseChatRequest({ ...plain, stream_options: { include_usage: true } }),
    ).rejects.toMatchObject({ param: 'stream_options' });
    await expect(
      parseChatRequest({ ...plain, messages: [{ role: 'user', content: 'hi' }, { role: 'user' }] }),
    ).rejects.toMatchObject({ param: 'messages[1].content' });
  });
});
