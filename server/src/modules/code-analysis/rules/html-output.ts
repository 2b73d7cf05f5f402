import type { CodeLanguage } from '@tessera/shared';
import { PROFILES } from '../metrics/profiles';
import type { SyntaxNode } from '../parsing/tree';
import type { Scope, ScopedRule } from './scoped';

/** String literal node types of the languages that build HTML in code. */
const STRINGS: Partial<Record<CodeLanguage, string[]>> = {
  java: ['string_literal'],
  kotlin: ['string_literal'],
  csharp: ['string_literal', 'verbatim_string_literal', 'interpolated_string_expression'],
  python: ['string'],
  javascript: ['string', 'template_string'],
  typescript: ['string', 'template_string'],
  tsx: ['string', 'template_string'],
  php: ['string', 'encapsed_string'],
  go: ['interpreted_string_literal', 'raw_string_literal'],
  ruby: ['string'],
};

/** A quote as it appears in source: `"`, `'`, or an escaped `\"`. */
const Q = `\\\\?["']?`;
const attr = (name: string, value: string) => new RegExp(`\\b${name}\\s*=\\s*${Q}(${value})`, 'i');
const PASSWORD_NAME = /pass(word|wd)?|pwd/i;
const INPUT = /<input\b[^>]*>?/gi;

/** `<input type="password">` somewhere in the text. */
const hasPasswordInput = (text: string): boolean => attr('type', 'password\\b').test(text);

/** The text of the function around a node (the file when at top level). */
function functionText(node: SyntaxNode, scope: Scope): string {
  const functions = Object.keys(PROFILES[scope.language].functions);
  let n: SyntaxNode = node;
  for (let p = node.parent; p; p = p.parent) {
    n = p;
    if (functions.includes(p.type)) break;
  }
  return scope.text(n);
}

/** `http://host` other than loopback: a form posting there sends its fields in clear. */
const CLEARTEXT_ACTION = new RegExp(
  `\\baction\\s*=\\s*${Q}http://(?!(localhost|127\\.|\\[::1\\]))[\\w.-]+`,
  'i',
);

const stringRule = (
  rule: Omit<ScopedRule, 'nodes' | 'category' | 'test'> & { test: ScopedRule['test'] },
): ScopedRule => ({ ...rule, category: 'security', nodes: STRINGS });

/**
 * HTML written by the code that exposes credentials (Fortify's HTML and J2EE categories; SonarSource S2068's
 * relatives): secrets in HTML comments (sent to every browser), password fields shown as text, login forms sent
 * with GET (the password lands in URLs, logs and history) or to a cleartext `http://` address.
 */
export const HTML_OUTPUT_RULES: ScopedRule[] = [
  stringRule({
    id: 'security/secret-in-html-comment',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-615',
    message:
      'An HTML comment sent to the browser holds a credential (`{detail}`): anyone can read page source. Remove it.',
    needles: ['<!--'],
    test: (node, scope) => {
      for (const [, comment] of scope.text(node).matchAll(/<!--([\s\S]*?)(?:-->|$)/g)) {
        const secret =
          /\b(password|passwd|pwd|secret|api[_ -]?key|access[_ -]?token)\s*[=:]\s*[^\s,;]+/i.exec(
            comment ?? '',
          );
        if (secret) return { detail: secret[0] };
      }
      return undefined;
    },
  }),
  stringRule({
    id: 'security/password-field-unmasked',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-549',
    message:
      'The password field `{detail}` is a text input, so the password shows on screen; use `type="password"`.',
    needles: ['<input', '<INPUT'],
    test: (node, scope) => {
      for (const [input] of scope.text(node).matchAll(INPUT)) {
        const name = attr('(name|id)', '[\\w-]+').exec(input)?.[2] ?? '';
        if (PASSWORD_NAME.test(name) && attr('type', 'text\\b').test(input)) return { detail: name };
      }
      return undefined;
    },
  }),
  stringRule({
    id: 'security/password-form-get',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-598',
    message:
      'This form sends a password with `method="get"`: it ends up in the URL, server logs, proxies and browser history. Use POST.',
    needles: ['<form', '<FORM'],
    test: (node, scope) =>
      /<form\b/i.test(scope.text(node)) &&
      attr('method', 'get\\b').test(scope.text(node)) &&
      hasPasswordInput(functionText(node, scope))
        ? {}
        : undefined,
  }),
  stringRule({
    id: 'security/login-form-cleartext',
    severity: 'high',
    confidence: 'high',
    cwe: 'CWE-523',
    message:
      'This login form posts the password to a plain `http://` address, readable on the network; use https.',
    needles: ['<form', '<FORM'],
    test: (node, scope) =>
      /<form\b/i.test(scope.text(node)) &&
      CLEARTEXT_ACTION.test(scope.text(node)) &&
      hasPasswordInput(functionText(node, scope))
        ? {}
        : undefined,
  }),
];
