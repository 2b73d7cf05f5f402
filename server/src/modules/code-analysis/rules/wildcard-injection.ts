import type { RuleDefinition } from './types';

/**
 * Commands whose options can name a program to run or a file to copy from (tar `--checkpoint-action=exec=…`,
 * rsync `-e`, chown/chmod `--reference=…`): Bandit B609's list, the classic wildcard-injection targets.
 */
const TARGETS = /(^|\/)(tar|chown|chmod|rsync)$/;

/**
 * Whether a command line runs one of those commands with an unquoted `*` pattern as an argument before any `--`:
 * the shell expands it to the directory's file names, and a file named like an option becomes one. `./*` and a
 * pattern after `--` cannot start with a dash.
 */
export function wildcardInjection(words: string[]): boolean {
  const segments: string[][] = [[]];
  for (const word of words) {
    if (/^(;|&&|\|\|?)$/.test(word)) segments.push([]);
    else segments[segments.length - 1]?.push(word);
  }
  return segments.some(([command, ...args]) => {
    if (!command || !TARGETS.test(command)) return false;
    for (const arg of args) {
      if (arg === '--') return false;
      if (arg.startsWith('*')) return true;
    }
    return false;
  });
}

/** Shell scripts (CWE-155); Python's shell calls are in python-risky-calls.ts. */
export const WILDCARD_INJECTION_RULES: RuleDefinition[] = [
  {
    id: 'security/wildcard-injection',
    needles: ['*'],
    category: 'security',
    severity: 'high',
    confidence: 'medium',
    cwe: 'CWE-155',
    message:
      '`{finding}` passes `*` to a command that takes options from its arguments, so a file named like an option (`--checkpoint-action=exec=…`, `--reference=…`) becomes one; put `--` before the pattern or use `./*`.',
    languages: {
      bash: `((command name: (command_name) @n) @finding (#match? @n "(^|/)(tar|chown|chmod|rsync)$"))`,
    },
    check: (c) => wildcardInjection((c.finding?.text ?? '').split(/\s+/)),
  },
];
