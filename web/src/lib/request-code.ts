/** A chat completion request as the playground sends it. */
export interface PlaygroundChatRequest {
  model: string;
  messages: { role: 'system' | 'user' | 'assistant'; content: string }[];
  temperature?: number;
  max_tokens?: number;
  stream: true;
  stream_options: { include_usage: true };
}

/**
 * Where the key goes in the code the playground hands out: an environment variable, never the key itself (the
 * page may hold a pasted key; code is pasted into chats, tickets and repositories).
 */
export const KEY_VARIABLE = 'TESSERA_API_KEY';

/** The same request with curl: `-N` shows the stream as it arrives; the body is the request as sent. */
export function curlCode(request: PlaygroundChatRequest, apiBase: string): string {
  // Single-quoted for the shell: a quote inside ends the string, adds an escaped quote, and starts it again.
  const body = JSON.stringify(request, null, 2).replaceAll("'", `'\\''`);
  return [
    `curl ${apiBase}/v1/chat/completions \\`,
    `  -H "Authorization: Bearer $${KEY_VARIABLE}" \\`,
    '  -H "Content-Type: application/json" \\',
    '  -N \\',
    `  -d '${body}'`,
  ].join('\n');
}

/** The same request with the official openai package for Node.js, printing the answer and then its usage. */
export function openaiNodeCode(request: PlaygroundChatRequest, apiBase: string): string {
  return [
    "import OpenAI from 'openai';",
    '',
    'const client = new OpenAI({',
    `  apiKey: process.env.${KEY_VARIABLE}, // an sk_test_… key gets the simulator, like the playground`,
    `  baseURL: ${JSON.stringify(`${apiBase}/v1`)},`,
    '});',
    '',
    `const stream = await client.chat.completions.create(${JSON.stringify(request, null, 2)});`,
    'for await (const chunk of stream) {',
    "  process.stdout.write(chunk.choices[0]?.delta?.content ?? '');",
    "  if (chunk.usage) console.log('\\n', chunk.usage);",
    '}',
  ].join('\n');
}
