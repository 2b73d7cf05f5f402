/** The taint walk's handler table: each node type of a language gets its handlers from the rules, in their order. */
import { describe, expect, it } from 'vitest';
import type { SyntaxNode } from '../../src/modules/code-analysis/parsing/tree';
import { taintCatalogue } from '../../src/modules/code-analysis/taint/languages';
import type { TaintLanguage } from '../../src/modules/code-analysis/taint/types';
import { evaluateCall } from '../../src/modules/code-analysis/taint/walk/calls';
import { kindEntry } from '../../src/modules/code-analysis/taint/walk/dispatch';
import { HANDLER_RULES } from '../../src/modules/code-analysis/taint/walk/handlers';
import { numberLiteral } from '../../src/modules/code-analysis/taint/walk/literals';
import type { WalkState } from '../../src/modules/code-analysis/taint/walk/state';

function catalogue(language: 'java' | 'python' | 'kotlin'): TaintLanguage {
  const lang = taintCatalogue(language, 'web');
  if (!lang) throw new Error(`no catalogue for ${language}`);
  return lang;
}

describe('the taint walk’s handler table', () => {
  it('gives a node type the handlers of the rules that claim it, in the rules’ order', () => {
    const java = catalogue('java');
    expect(kindEntry(java, 'method_invocation').handlers).toContain(evaluateCall);
    expect(kindEntry(java, 'decimal_integer_literal').handlers).toEqual([numberLiteral]);
    const claiming = HANDLER_RULES.map((rule) => rule('if_statement', java, java.flow)).filter((h) => h);
    expect(kindEntry(java, 'if_statement').handlers).toHaveLength(claiming.length);
    expect(claiming.length).toBeGreaterThan(0);
  });

  it('leaves a name to the name read, and fills each type once per language', () => {
    const java = catalogue('java');
    const python = catalogue('python');
    const entry = kindEntry(java, 'identifier');
    expect(entry.handlers).toEqual([]);
    expect(entry.namePath).toBe(true);
    expect(kindEntry(java, 'identifier')).toBe(entry);
    expect(kindEntry(python, 'identifier')).not.toBe(entry);
    // A Python call is `call`; Java has no node of that name.
    expect(kindEntry(python, 'call').handlers).toContain(evaluateCall);
    expect(kindEntry(java, 'call').handlers).not.toContain(evaluateCall);
  });

  it('passes a node on when its handler does not answer it (a Kotlin jump that is a `break`)', () => {
    const kotlin = catalogue('kotlin');
    const [jump] = kindEntry(kotlin, 'jump_expression').handlers;
    if (!jump) throw new Error('no handler for jump_expression');
    const node = { type: 'jump_expression', children: [{ type: 'break' }] } as unknown as SyntaxNode;
    // The handler decides from the keyword alone: it never touches the state for a `break`.
    expect(jump({} as WalkState, node)).toBeUndefined();
  });
});
