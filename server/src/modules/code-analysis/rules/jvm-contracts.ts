import type { Captures, RuleDefinition } from './types';

const modifiers = (c: Captures): string => c.mods?.text ?? '';
/** The code of a capture without its comments (a comment may name the call that is missing). */
const code = (text: string | undefined): string => (text ?? '').replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, '');
const publicStatic = (c: Captures): boolean =>
  /\bpublic\b/.test(modifiers(c)) && /\bstatic\b/.test(modifiers(c));
/** Types whose instances can be changed through any reference (arrays aside). */
const MUTABLE_TYPES =
  /^(java\.util\.)?(Date|Calendar|GregorianCalendar|StringBuilder|StringBuffer|ArrayList|LinkedList|HashMap|LinkedHashMap|TreeMap|HashSet|LinkedHashSet|TreeSet|Hashtable|Vector|Stack|Properties|AtomicInteger|AtomicLong|Point|Rectangle)(<.*>)?$/;

/** The JVM's object and class contracts (SonarSource S1114, S1215, S2975, S2445, S1872, S1444, S2386, S1147). */
export const JVM_CONTRACT_RULES: RuleDefinition[] = [
  {
    id: 'bug/finalize-without-super',
    needles: ['finalize'],
    category: 'bug',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-568',
    message:
      'This `finalize()` does not call `super.finalize()`, so the superclass never releases what it holds; call it in a `finally` block.',
    languages: {
      java: `(method_declaration name: (identifier) @name (#eq? @name "finalize") parameters: (formal_parameters) @params body: (block) @body) @finding`,
    },
    check: (c) =>
      (c.params?.text ?? '').replace(/\s+/g, '') === '()' &&
      !/\bsuper\s*\.\s*finalize\s*\(/.test(code(c.body?.text)),
  },
  {
    id: 'bug/explicit-finalize',
    needles: ['finalize'],
    category: 'bug',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-586',
    message:
      '`{finding}` runs the finalizer by hand; the garbage collector will run it again. Release resources with `close()` (AutoCloseable) instead.',
    languages: {
      java: `(method_invocation object: (_) @object name: (identifier) @name (#eq? @name "finalize") arguments: (argument_list) @args) @finding`,
    },
    check: (c) => c.object?.text !== 'super' && (c.args?.text ?? '').replace(/\s+/g, '') === '()',
  },
  {
    id: 'bug/clone-without-super',
    needles: ['clone'],
    category: 'bug',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-580',
    message:
      'This `clone()` builds its copy without `super.clone()`, so subclasses get an object of the wrong class; start from `super.clone()`.',
    languages: {
      java: `(method_declaration name: (identifier) @name (#eq? @name "clone") parameters: (formal_parameters) @params body: (block) @body) @finding`,
    },
    check: (c) =>
      (c.params?.text ?? '').replace(/\s+/g, '') === '()' &&
      !/\bsuper\s*\.\s*clone\s*\(/.test(code(c.body?.text)),
  },
  {
    id: 'bug/empty-synchronized',
    needles: ['synchronized'],
    category: 'bug',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-585',
    message:
      'This `synchronized` block is empty: it protects nothing; hold the lock around the code that reads or writes the shared state.',
    languages: { java: `(synchronized_statement body: (block) @body) @finding` },
    check: (c) => code(c.body?.text).replace(/\s+/g, '') === '{}',
  },
  {
    id: 'bug/class-compared-by-name',
    needles: ['getClass'],
    category: 'bug',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-486',
    message:
      'Classes compared by name: two different classes (other packages, other class loaders) can share it; compare the `Class` objects, or use `instanceof`.',
    languages: {
      java: `((method_invocation name: (identifier) @name) @finding
              (#match? @name "^(equals|equalsIgnoreCase)$")
              (#match? @finding "getClass\\\\(\\\\)\\\\s*\\\\.\\\\s*get(Simple|Canonical)?Name\\\\(\\\\)"))`,
    },
  },
  {
    id: 'bug/mutable-public-static-field',
    needles: ['static'],
    category: 'bug',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-500',
    message:
      'A public static field that is not final can be changed by any code in the program; make it `final` (and private, with an accessor, if it must change).',
    languages: { java: `(field_declaration (modifiers) @mods) @finding` },
    check: (c) => publicStatic(c) && !/\bfinal\b/.test(modifiers(c)),
  },
  {
    id: 'bug/public-static-array',
    needles: ['static'],
    category: 'bug',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-582',
    message:
      '`final` fixes which array this field holds, not what is in it: any code can change its elements. Make it private and return a copy or an unmodifiable list.',
    languages: {
      java: `(field_declaration (modifiers) @mods type: (_) @type declarator: (variable_declarator) @decl) @finding`,
    },
    check: (c) =>
      publicStatic(c) &&
      /\bfinal\b/.test(modifiers(c)) &&
      (/\[\s*\]/.test(c.type?.text ?? '') || /^\w+\s*\[\s*\]/.test(c.decl?.text ?? '')),
  },
  {
    id: 'bug/public-static-mutable-object',
    needles: ['static'],
    category: 'bug',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-607',
    message:
      '`final` fixes which `{type}` this public field holds, not its state: any code can change it. Make it private, or hold an immutable value.',
    languages: { java: `(field_declaration (modifiers) @mods type: (_) @type) @finding` },
    check: (c) => publicStatic(c) && /\bfinal\b/.test(modifiers(c)) && MUTABLE_TYPES.test(c.type?.text ?? ''),
  },
  {
    id: 'bug/process-exit',
    needles: ['exit', 'halt'],
    category: 'bug',
    severity: 'low',
    confidence: 'medium',
    cwe: 'CWE-382',
    message:
      '`{finding}` stops the whole virtual machine, and with it every request a server is serving; throw an exception or return an error instead.',
    languages: {
      // Two patterns: predicates do not apply inside an alternation.
      java: `((method_invocation object: (identifier) @o name: (identifier) @n) @finding (#eq? @o "System") (#eq? @n "exit"))
             ((method_invocation object: (method_invocation) @o name: (identifier) @n) @finding
              (#match? @o "^Runtime\\\\s*\\\\.\\\\s*getRuntime\\\\s*\\\\(\\\\s*\\\\)$") (#match? @n "^(exit|halt)$"))`,
    },
  },
];
