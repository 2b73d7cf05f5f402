import type { CodeLanguage, Finding, FindingCategory } from '@tessera/shared';
import { Query } from 'web-tree-sitter';
import { locate } from '../findings';
import { loadedLanguage } from '../parsing/grammars';
import type { ParsedSource } from '../parsing/parse';
import { taintFindings } from '../taint/engine';
import { BUG_RULES } from './bugs';
import { SECURITY_RULES } from './security';
import type { Captures, RuleDefinition } from './types';
import { unusedVariables } from './unused';

export const RULES: RuleDefinition[] = [...BUG_RULES, ...SECURITY_RULES];

const compiled = new Map<string, Query>();

/** The rule's query for a language, compiled once per worker. */
export function compileRule(rule: RuleDefinition, language: CodeLanguage): Query | undefined {
  const source = rule.languages[language];
  if (!source) return undefined;
  const key = `${rule.id}:${language}`;
  let query = compiled.get(key);
  if (!query) {
    const lang = loadedLanguage(language);
    if (!lang) throw new Error(`grammar for ${language} is not loaded`);
    query = new Query(lang, source);
    compiled.set(key, query);
  }
  return query;
}

const MAX_FINDINGS_PER_RULE = 200;

export function runRules(
  parsed: ParsedSource,
  categories: Exclude<FindingCategory, 'complexity'>[],
): Finding[] {
  const findings: Finding[] = [];
  for (const rule of RULES) {
    if (!categories.includes(rule.category)) continue;
    if (rule.needles && !rule.needles.some((n) => parsed.source.includes(n))) continue;
    const query = compileRule(rule, parsed.language);
    if (!query) continue;
    const seen = new Set<string>();
    for (const match of query.matches(parsed.tree.rootNode, { matchLimit: 2048 })) {
      const captures: Captures = {};
      let at: (typeof match.captures)[number]['node'] | undefined;
      for (const { name, node } of match.captures) {
        captures[name] = { text: node.text, type: node.type };
        if (name === 'finding') at = node;
      }
      if (!at || (rule.check && !rule.check(captures))) continue;
      const key = `${at.startIndex}:${at.endIndex}`;
      if (seen.has(key)) continue;
      seen.add(key);
      findings.push(toFinding(rule, parsed, at, captures));
      if (seen.size >= MAX_FINDINGS_PER_RULE) break;
    }
  }
  if (categories.includes('bug')) findings.push(...unusedVariables(parsed));
  if (categories.includes('security')) findings.push(...taintFindings(parsed));
  return findings;
}

function toFinding(
  rule: RuleDefinition,
  parsed: ParsedSource,
  node: {
    startPosition: { row: number; column: number };
    endPosition: { row: number; column: number };
    startIndex: number;
    endIndex: number;
  },
  captures: Captures,
): Finding {
  const message = rule.message.replace(/\{(\w+)\}/g, (_, name: string) =>
    (captures[name]?.text ?? name).slice(0, 80),
  );
  return {
    rule_id: rule.id,
    category: rule.category,
    severity: rule.severity,
    confidence: rule.confidence,
    message,
    ...locate(parsed, {
      startRow: node.startPosition.row,
      startCol: node.startPosition.column,
      endRow: node.endPosition.row,
      endCol: node.endPosition.column,
      startIndex: node.startIndex,
      endIndex: node.endIndex,
    }),
    cwe: rule.cwe ?? null,
  };
}
