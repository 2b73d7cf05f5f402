import { createHash } from 'node:crypto';
import type { ChatCompletionRequest } from '@tessera/shared';
import { ServiceError } from '../../errors';
import { contentText } from '../tokenizer';
import { jsonValueFor, type ValueSource, valueSourceFrom } from './simulator-json';
import type { SchemaBudget } from './simulator-json-budget';
import { seedOf, sourceOf } from './simulator-text';

export interface FunctionTool {
  name: string;
  description: string;
  parameters: unknown;
}

export interface SimulatedToolCall {
  id: string;
  name: string;
  /** A JSON object valid against the function's parameters, as a string. */
  arguments: string;
}

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

// Words that every tool description and every request share, and so tell nothing about which tool is meant.
const STOP_WORDS = new Set([
  'the',
  'and',
  'for',
  'with',
  'from',
  'this',
  'that',
  'what',
  'get',
  'set',
  'you',
]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function functionTools(request: ChatCompletionRequest): FunctionTool[] {
  return (request.tools ?? []).flatMap((tool) => {
    const fn = tool.function;
    if (tool.type !== 'function' || !fn) return [];
    const description = typeof fn.description === 'string' ? fn.description : '';
    return [{ name: fn.name, description, parameters: fn.parameters }];
  });
}

/** The words of a text for matching: camelCase and snake_case split, lower case, a plural's `s` dropped. */
function termsOf(text: string): Set<string> {
  const words = text
    .replace(/(\p{Ll}|\p{N})(\p{Lu})/gu, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u);
  return new Set(
    words
      .filter((w) => w.length >= 3 && !STOP_WORDS.has(w))
      .map((w) => (w.length > 3 && w.endsWith('s') ? w.slice(0, -1) : w)),
  );
}

/** What the user last asked (the whole conversation when no user message is left). */
export function lastUserText(request: ChatCompletionRequest): string {
  const last = request.messages.findLast((m) => m.role === 'user');
  return last ? contentText(last.content) : request.messages.map((m) => contentText(m.content)).join('\n');
}

/** The tool whose name and description share the most words with the user's request; ties go to the first. */
function bestTool(tools: FunctionTool[], request: ChatCompletionRequest): FunctionTool | undefined {
  const asked = termsOf(sourceOf(lastUserText(request)));
  let best: FunctionTool | undefined;
  let bestScore = -1;
  for (const tool of tools) {
    const score = [...termsOf(`${tool.name} ${tool.description}`)].filter((t) => asked.has(t)).length;
    if (score > bestScore) [best, bestScore] = [tool, score];
  }
  return best;
}

function invalidToolChoice(message: string): ServiceError {
  return new ServiceError('invalid_request', `Invalid value for 'tool_choice': ${message}`, {
    param: 'tool_choice',
    code: 'invalid_value',
  });
}

function namedTool(tools: FunctionTool[], name: unknown): FunctionTool {
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw invalidToolChoice(`no function named '${String(name)}' was provided in 'tools'.`);
  return tool;
}

/** `allowed_tools`: the listed functions only, called when the mode is `required` or as `auto` would. */
function allowedTool(
  tools: FunctionTool[],
  allowed: Record<string, unknown>,
  request: ChatCompletionRequest,
): FunctionTool | undefined {
  const listed = Array.isArray(allowed.tools) ? allowed.tools.filter(isRecord) : [];
  const names = new Set(listed.map((t) => (isRecord(t.function) ? t.function.name : undefined)));
  const subset = tools.filter((t) => names.has(t.name));
  const calls = allowed.mode === 'required' || request.messages.at(-1)?.role === 'user';
  return calls ? bestTool(subset, request) : undefined;
}

/**
 * The function the simulated model calls, or undefined for a text answer. A call is made when `tool_choice` is
 * `required` or names a function, and under `auto` (or no choice) when the user spoke last: after a tool's result
 * the model answers in text, so that a client's tool loop ends.
 */
export function chosenTool(request: ChatCompletionRequest): FunctionTool | undefined {
  const choice = request.tool_choice;
  const tools = functionTools(request);
  if (choice === 'none') return undefined;
  if ((choice === 'required' || isRecord(choice)) && (request.tools ?? []).length === 0) {
    throw invalidToolChoice("'tool_choice' is only allowed when 'tools' are specified.");
  }
  if (isRecord(choice)) {
    if (choice.type === 'function')
      return namedTool(tools, isRecord(choice.function) && choice.function.name);
    if (choice.type === 'allowed_tools' && isRecord(choice.allowed_tools))
      return allowedTool(tools, choice.allowed_tools, request);
    // Custom (free-form) tools are not simulated.
    return undefined;
  }
  if (choice === 'required') return bestTool(tools, request);
  return request.messages.at(-1)?.role === 'user' ? bestTool(tools, request) : undefined;
}

/** OpenAI's call ids (`call_` and 24 characters), derived from the inputs rather than drawn at random. */
function callId(seed: string): string {
  const digest = createHash('sha256').update(seed).digest();
  return `call_${Array.from(digest.subarray(0, 24), (b) => BASE62[b % 62]).join('')}`;
}

// A name: capitalised words ("Paris", "New York", "São Paulo").
const NAME = String.raw`\p{Lu}[\p{L}\p{N}'’-]*(?:[ \t]+\p{Lu}[\p{L}\p{N}'’-]*)*`;
// A list of names: "Paris and Tokyo", "Paris, Rome, or New York".
const NAME_LIST = new RegExp(String.raw`(${NAME})((?:\s*,\s*${NAME})*)\s*,?\s+(?:and|or|&)\s+(${NAME})`, 'u');
// The most calls one answer makes, and how much of the request is searched for a list (the expression is ours,
// but linear only per starting point).
const MAX_PARALLEL_CALLS = 4;
const LIST_SEARCH_CHARS = 2_000;

/** The names the user lists ("the weather in Paris, Rome and Tokyo"), when there are two or more. */
export function listedNames(text: string): string[] {
  const match = NAME_LIST.exec(text.slice(0, LIST_SEARCH_CHARS));
  if (!match) return [];
  let [, first = '', middle = '', last = ''] = match;
  // A sentence's first word is capitalised whatever it is: "Compare Paris and Tokyo" lists Paris.
  const opensSentence = /(?:^|[.!?\n]\s*)$/u.test(text.slice(0, match.index));
  if (opensSentence && /\s/u.test(first)) first = first.replace(/^\S+\s+/u, '');
  const middles = middle
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean);
  return [...new Set([first, ...middles, last])].slice(0, MAX_PARALLEL_CALLS);
}

function argumentsFor(tool: FunctionTool, source: ValueSource, budget: SchemaBudget): string {
  const schema = tool.parameters;
  const filled =
    isRecord(schema) && Object.keys(schema).length > 0 ? jsonValueFor(schema, source, 'tools', budget) : {};
  return JSON.stringify(isRecord(filled) ? filled : {});
}

/**
 * The calls of one answer: their arguments fill the function's parameters from the user's words. When the user
 * lists names ("weather in Paris and Tokyo") and parallel calls are allowed (`parallel_tool_calls` is not false),
 * the function is called once a name, as a model does, provided each name lands in its call's arguments;
 * otherwise once.
 */
export function simulatedToolCalls(
  tool: FunctionTool,
  request: ChatCompletionRequest,
  variant: string,
  budget: SchemaBudget,
): SimulatedToolCall[] {
  const prompt = seedOf(request.messages.map((m) => contentText(m.content)).join('\n'));
  const asked = lastUserText(request);
  const seed = `${variant}\u0000${tool.name}\u0000${prompt}`;
  const parallel = (request as { parallel_tool_calls?: unknown }).parallel_tool_calls !== false;
  const names = parallel ? listedNames(asked) : [];
  if (names.length >= 2) {
    const calls = names.map((name, i) => ({
      id: callId(`${variant}\u0000${prompt}\u0000${i}`),
      name: tool.name,
      arguments: argumentsFor(
        tool,
        { ...valueSourceFrom(asked, `${seed}\u0000${i}`), words: [name] },
        budget,
      ),
    }));
    if (calls.every((call, i) => call.arguments.includes(JSON.stringify(names[i]).slice(1, -1))))
      return calls;
  }
  const source = valueSourceFrom(asked, seed);
  return [
    {
      id: callId(`${variant}\u0000${prompt}`),
      name: tool.name,
      arguments: argumentsFor(tool, source, budget),
    },
  ];
}

/** The results the conversation ends with (the trailing `tool` messages), or undefined when it ends otherwise. */
export function trailingToolResults(request: ChatCompletionRequest): string | undefined {
  const { messages } = request;
  let first = messages.length;
  while (first > 0 && messages[first - 1]?.role === 'tool') first--;
  if (first === messages.length) return undefined;
  return messages
    .slice(first)
    .map((m) => contentText(m.content))
    .join('\n');
}
