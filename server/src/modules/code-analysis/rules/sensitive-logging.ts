import type { CodeLanguage } from '@tessera/shared';
import type { SyntaxNode } from '../parsing/tree';
import { descendants, field, type Hit, type Scope, type ScopedRule } from './scoped';

/**
 * Secrets written to logs or the console (CWE-532, CodeQL's cleartext-logging queries): a logging call given a
 * variable or member named like a password, token or key. Logs are kept, shipped and read by more people than the
 * secret was meant for. Names that describe the secret rather than hold it (`passwordLength`, `tokenType`,
 * `secretName`) and values passed through a masking or hashing call are not reported.
 */
const SECRET =
  /^_?(password|passwd|pwd|passphrase|secret|clientSecret|client_secret|apiKey|api_key|apiToken|accessToken|access_token|refreshToken|refresh_token|authToken|auth_token|bearerToken|token|privateKey|private_key|creditCard|credit_card|cardNumber|card_number|cvv|ssn)$|^(user|new|old|current|db|admin|account|login|plain)_?(password|passwd|pwd|secret|token)$/i;
const MASKED =
  /(mask|redact|hash|sha\d*|md5|digest|obfuscate|truncate|encrypt|length|count|size|isEmpty|isNotEmpty|isBlank|prefix|take|hashCode|last4)/i;

/** Logging and console calls, by the callee's text with whitespace removed. */
const LOGGERS: Partial<Record<CodeLanguage, RegExp>> = {
  csharp:
    /\.(LogTrace|LogDebug|LogInformation|LogWarning|LogError|LogCritical)$|^(Console\.(Write|WriteLine)|Debug\.WriteLine|Trace\.(Write|WriteLine|TraceInformation|TraceWarning|TraceError))$|^_?[lL]og(ger)?\.(Debug|Info|Information|Warn|Warning|Error|Fatal|Verbose|Trace)$/,
  kotlin:
    /^(\w+\.)?(log|logger|LOG|LOGGER|Log|Timber)\.(trace|debug|info|warn|warning|error|d|i|w|e|v)$|^(println|print)$/,
  scala: /^(\w+\.)?(log|logger|LOG|LOGGER|Logger)\.(trace|debug|info|warn|error)$|^println$/,
  swift:
    /^(print|NSLog|debugPrint|os_log)$|^(\w+\.)*logger\.(trace|debug|info|notice|warning|error|critical|log)$/,
  rust: /^((log|tracing)::)?(trace|debug|info|warn|error|println|eprintln|print|eprint)$/,
};

const NAMES = ['identifier', 'simple_identifier', 'field_identifier', 'interpolated_identifier'];

/** The callee and the argument nodes of a call (or Rust macro) in the language's tree. */
function callParts(node: SyntaxNode, scope: Scope): { callee: string; args: SyntaxNode[] } | undefined {
  if (node.type === 'macro_invocation') {
    const tokens = node.children.find((c) => c.type === 'token_tree');
    return { callee: scope.text(field(node, 'macro') ?? node), args: tokens ? [tokens] : [] };
  }
  const fn = field(node, 'function') ?? node.children.find((c) => c.named);
  const args =
    field(node, 'arguments') ??
    node.children.find((c) => c.type === 'call_suffix')?.children.find((c) => c.type === 'value_arguments');
  if (!fn || !args) return undefined;
  return { callee: scope.text(fn).replace(/\s+/g, ''), args: args.children.filter((c) => c.named) };
}

/** Whether the secret's value reaches the log as is: not through a masking call or a property such as `length`. */
function unmasked(id: SyntaxNode, arg: SyntaxNode, scope: Scope): boolean {
  for (let n: SyntaxNode | null = id.parent; n && n !== arg.parent; n = n.parent) {
    const text = scope.text(n);
    const after = text.slice(id.endIndex - n.startIndex);
    if (/^\s*(\?|!)?\s*\.\s*\w+/.test(after) && MASKED.test(/\.\s*(\w+)/.exec(after)?.[1] ?? ''))
      return false;
    if (/call|invocation|macro/.test(n.type) && MASKED.test(text.slice(0, id.startIndex - n.startIndex)))
      return false;
  }
  return true;
}

function loggedSecret(node: SyntaxNode, scope: Scope): Hit | undefined {
  const logger = LOGGERS[scope.language];
  const parts = logger ? callParts(node, scope) : undefined;
  if (!logger || !parts || !logger.test(parts.callee)) return undefined;
  for (const arg of parts.args) {
    for (const id of descendants(arg, NAMES)) {
      const name = scope.text(id).replace(/^\$/, '');
      if (SECRET.test(name) && unmasked(id, arg, scope)) return { detail: name };
    }
    // Rust's inline format arguments: `println!("token={token}")`.
    if (scope.language === 'rust')
      for (const s of descendants(arg, ['string_literal']))
        for (const m of scope.text(s).matchAll(/\{\s*(\w+)\s*(:[^}]*)?\}/g))
          if (SECRET.test(m[1] ?? '')) return { detail: m[1] };
  }
  return undefined;
}

export const SENSITIVE_LOGGING_RULES: ScopedRule[] = [
  {
    id: 'security/secret-logged',
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-532',
    message:
      '`{detail}` is written to the log in clear, where it is kept and read by people and systems the secret was not meant for; log that the event happened, not the secret (or a masked form).',
    needles: ['ass', 'ecret', 'oken', 'pwd', 'Key', 'key', 'ard', 'ssn', 'cvv'],
    nodes: {
      csharp: ['invocation_expression'],
      kotlin: ['call_expression'],
      scala: ['call_expression'],
      swift: ['call_expression'],
      rust: ['macro_invocation', 'call_expression'],
    },
    test: loggedSecret,
  },
];
