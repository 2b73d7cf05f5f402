/** The rule catalogue itself: every rule compiles for its languages and carries its metadata. */
import { CODE_LANGUAGES, type CodeLanguage } from '@tessera/shared';
import { describe, expect, it } from 'vitest';
import { loadLanguage } from '../../src/modules/code-analysis/parsing/grammars';
import { compileRule, RULES } from '../../src/modules/code-analysis/rules/engine';

describe('rules as data', () => {
  it('every rule compiles for every language it declares, and each has its metadata', async () => {
    for (const lang of CODE_LANGUAGES) await loadLanguage(lang);
    const ids = new Set<string>();
    for (const rule of RULES) {
      expect(ids.has(rule.id), rule.id).toBe(false);
      ids.add(rule.id);
      expect(rule.message.length).toBeGreaterThan(30);
      if (rule.category === 'security') expect(rule.cwe).toMatch(/^CWE-\d+$/);
      for (const lang of Object.keys(rule.languages) as CodeLanguage[]) {
        expect(() => compileRule(rule, lang), `${rule.id} in ${lang}`).not.toThrow();
      }
    }
    // Compiling every query of every grammar takes ~16 s alone on this machine and over 30 s beside other suites.
  }, 120_000);
});
