import type { Captures, RuleDefinition } from './types';

/**
 * C and C++ library calls that write past a buffer or read a format from data, as the Semgrep registry's
 * `insecure-use-*-fn` rules, flawfinder and CodeQL (`cpp/unbounded-write`, `cpp/non-constant-format`) report them:
 * `gets` (never bounded), `strcpy`/`strcat`/`sprintf` of a value that is not a literal, `scanf` reading `%s`
 * without a width, and `printf`-family calls whose format is a variable. The bounded forms (`fgets`, `snprintf`,
 * `strlcpy`, `%15s`, `printf("%s", s)`) are not reported.
 */
const GETS = '^(std::)?(gets|_getws|getws)$';
const COPY =
  '^(std::)?(strcpy|strcat|wcscpy|wcscat|stpcpy|lstrcpy|lstrcatA?|lstrcpyA?|_tcscpy|_tcscat|_mbscpy|_mbscat|StrCpy|StrCat)$';
const SPRINTF = '^(std::)?(sprintf|vsprintf|swprintf|vswprintf)$';
const SCANF_FIRST = '^(std::)?(scanf|wscanf|vscanf)$';
const SCANF_SECOND = '^(std::)?(fscanf|sscanf|vfscanf|vsscanf|fwscanf|swscanf)$';
const FORMAT_FIRST = '^(std::)?(printf|vprintf|wprintf)$';
const FORMAT_SECOND =
  '^(std::)?(fprintf|sprintf|vsprintf|dprintf|vfprintf|syslog|vsyslog|fwprintf|err|errx|warn|warnx)$';
const FORMAT_THIRD = '^(std::)?(snprintf|vsnprintf|swprintf)$';

/** The C grammar has no qualified names; C++ spells `std::strcpy` too. */
const callee = (lang: 'c' | 'cpp') =>
  lang === 'c' ? '(identifier)' : '[(identifier) (qualified_identifier)]';

const LITERAL = /^(string_literal|concatenated_string|raw_string_literal)$/;
/** gettext-style wrappers (`_("…")`) and ALL-CAPS macros hold constant formats. */
const CONSTANT_FORMAT = /^(_|N_|gettext|dgettext|ngettext|tr|QT_TR_NOOP|TEXT|_T|L)\(|^[A-Z][A-Z0-9_]*$/;

const isVariableFormat = (c: Captures): boolean => {
  const fmt = c.fmt;
  return fmt !== undefined && !LITERAL.test(fmt.type) && !CONSTANT_FORMAT.test(fmt.text.trim());
};

const forC = (query: (fn: string) => string): Partial<Record<'c' | 'cpp', string>> => ({
  c: query(callee('c')),
  cpp: query(callee('cpp')),
});

export const MEMORY_SAFETY_RULES: RuleDefinition[] = [
  {
    id: 'security/dangerous-function',
    needles: ['gets'],
    category: 'security',
    severity: 'high',
    confidence: 'high',
    cwe: 'CWE-242',
    message:
      '`{finding}` cannot limit how much it reads and overflows the buffer on a long line; use fgets(buf, sizeof buf, stdin).',
    languages: forC((fn) => `((call_expression function: ${fn} @fn) @finding (#match? @fn "${GETS}"))`),
  },
  {
    id: 'security/buffer-overflow',
    needles: ['cpy', 'cat', 'printf', 'scanf', 'StrC'],
    category: 'security',
    severity: 'high',
    confidence: 'medium',
    cwe: 'CWE-120',
    message:
      '`{finding}` copies without checking the destination size (buffer overflow); use a bounded form (snprintf, strlcpy/strlcat, a width in `%Ns`) or std::string.',
    languages: forC(
      (
        fn,
      ) => `((call_expression function: ${fn} @fn arguments: (argument_list . (_) . (_) @src .)) @finding (#match? @fn "${COPY}"))
        ((call_expression function: ${fn} @fn arguments: (argument_list . (_) . (string_literal) @spec . (_))) @finding (#match? @fn "${SPRINTF}") (#match? @spec "%[-+ #0]*s"))
        ((call_expression function: ${fn} @fn arguments: (argument_list . (string_literal) @spec)) @finding (#match? @fn "${SCANF_FIRST}") (#match? @spec "%(s|\\\\[)"))
        ((call_expression function: ${fn} @fn arguments: (argument_list . (_) . (string_literal) @spec)) @finding (#match? @fn "${SCANF_SECOND}") (#match? @spec "%(s|\\\\[)"))`,
    ),
    // A literal copied is as long as the code says; the destination was sized for it.
    check: (c) => c.src === undefined || !LITERAL.test(c.src.type),
  },
  {
    id: 'security/non-literal-format-string',
    needles: ['printf', 'syslog', 'err', 'warn'],
    category: 'security',
    severity: 'high',
    confidence: 'medium',
    cwe: 'CWE-134',
    message:
      '`{finding}` uses a value as the format: a `%n` or `%s` in it reads or writes the stack; pass a constant format ("%s", value).',
    languages: forC(
      (
        fn,
      ) => `((call_expression function: ${fn} @fn arguments: (argument_list . (_) @fmt .)) @finding (#match? @fn "${FORMAT_FIRST}"))
        ((call_expression function: ${fn} @fn arguments: (argument_list . (_) . (_) @fmt .)) @finding (#match? @fn "${FORMAT_SECOND}"))
        ((call_expression function: ${fn} @fn arguments: (argument_list . (_) . (_) . (_) @fmt .)) @finding (#match? @fn "${FORMAT_THIRD}"))`,
    ),
    check: isVariableFormat,
    // The dataflow reports the same call when it can name the input (security/format-string).
    yieldsTo: 'security/format-string',
  },
  {
    // CodeQL's cpp/unsafe-strncat, Semgrep's insecure-use-strcat-fn: strncat's bound is the room LEFT in the
    // destination (size - strlen(dst) - 1), not its size. A constant, or the destination's own size, overflows as soon
    // as the destination holds anything.
    id: 'security/unsafe-strncat',
    needles: ['strncat', 'wcsncat'],
    category: 'security',
    severity: 'high',
    confidence: 'medium',
    cwe: 'CWE-120',
    message:
      '`{finding}` bounds the copy by a size that ignores what the destination already holds; pass sizeof(dst) - strlen(dst) - 1, or use strlcat/snprintf.',
    languages: forC(
      (fn) =>
        `((call_expression function: ${fn} @fn arguments: (argument_list . (_) @dst . (_) . (_) @n .)) @finding (#match? @fn "^(std::)?(strncat|wcsncat)$"))`,
    ),
    check: (c) => {
      const n = c.n?.text.replace(/\s+/g, '') ?? '';
      const dst = c.dst?.text.replace(/\s+/g, '') ?? '';
      return c.n?.type === 'number_literal' || n === `sizeof(${dst})` || n === `sizeof${dst}`;
    },
  },
  {
    // CWE-14, CERT MSC06-C, CodeQL's cpp/memset-may-be-deleted, Semgrep's insecure-use-memset: clearing a secret with memset before
    // the buffer is freed or goes out of scope is a dead store the compiler may remove, leaving the secret in memory.
    // Reported for buffers named as secrets; memset_s, explicit_bzero, SecureZeroMemory and OPENSSL_cleanse stay.
    id: 'security/insecure-memset',
    needles: ['memset'],
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-14',
    message:
      '`{finding}` clears a secret with memset, which the compiler may remove as a dead store; use memset_s, explicit_bzero, SecureZeroMemory or OPENSSL_cleanse.',
    languages: forC(
      (fn) =>
        `((call_expression function: ${fn} @fn arguments: (argument_list . (_) @buf)) @finding (#match? @fn "^(std::)?memset$"))`,
    ),
    check: (c) =>
      /(^|[^a-z])(pass(word|wd|phrase)?|pwd|secret|private_?key|priv_?key|key|token|credential|cred|pin)s?([^a-z]|$)/i.test(
        c.buf?.text ?? '',
      ) || /(Password|Passwd|Secret|Token|Credential|Key)(?![a-z])/.test(c.buf?.text ?? ''),
  },
  {
    // Semgrep's insecure-use-strtok-fn, flawfinder: strtok keeps its position in hidden static state (two threads or
    // nested loops tokenising at once corrupt each other) and writes into the string it is given.
    id: 'security/non-reentrant-function',
    needles: ['strtok'],
    category: 'security',
    severity: 'low',
    confidence: 'medium',
    cwe: 'CWE-676',
    message:
      '`{finding}` keeps its position in static state shared by every caller and thread, and modifies its input; use strtok_r (strtok_s on Windows).',
    languages: forC(
      (fn) => `((call_expression function: ${fn} @fn) @finding (#match? @fn "^(std::)?strtok$"))`,
    ),
  },
  {
    // gosec G103, CodeQL's go/unsafe-pointer family: `unsafe` steps outside Go's type and bounds checks, so a wrong
    // offset or length reads or writes memory the program does not own. An audit: most uses are deliberate.
    id: 'security/unsafe-memory-access',
    needlesByLanguage: { go: ['"unsafe"'] },
    category: 'security',
    severity: 'low',
    confidence: 'medium',
    cwe: 'CWE-242',
    message:
      "`{finding}` bypasses Go's type and bounds checks; a wrong pointer, offset or length corrupts memory. Keep it out of code that handles untrusted sizes, or use the safe conversions.",
    languages: {
      go: `((call_expression function: (selector_expression operand: (identifier) @pkg field: (field_identifier) @fn)) @finding
             (#eq? @pkg "unsafe") (#match? @fn "^(Pointer|Add|Slice|SliceData|String|StringData)$"))`,
    },
  },
];
