import {
  CONFIDENCE_LEVELS,
  type CodeLanguage,
  type Finding,
  type FindingCategory,
  type ThreatModel,
} from '@tessera/shared';
import { Query } from 'web-tree-sitter';
import { locate } from '../findings';
import { loadedLanguage } from '../parsing/grammars';
import type { ParsedSource } from '../parsing/parse';
import { taintFindings } from '../taint/engine';
import type { TaintProject } from '../taint/project';
import { AIRFLOW_RULES } from './airflow';
import { ANDROID_STORAGE_RULES } from './android-storage';
import { ANDROID_RULES } from './android-webview';
import { API_MISUSE_RULES } from './api-misuse';
import { archiveExtraction } from './archive-extraction';
import { AWS_CDK_RULES } from './aws-cdk';
import { BLOCK_RULES } from './blocks';
import { BROWSER_RULES } from './browser';
import { BUG_RULES } from './bugs';
import { CLEARTEXT_RULES } from './cleartext';
import { CLEARTEXT_CREDENTIAL_RULES } from './cleartext-credentials';
import { COMMENT_RULES } from './comments';
import { CONDITION_RULES } from './conditions';
import { insecureCookies } from './cookies';
import { CORS_RULES } from './cors';
import { CSRF_RULES } from './csrf';
import { JVM_DESERIALIZATION_RULES } from './deserialization-jvm';
import { DOM_SINK_RULES } from './dom-sinks';
import { DOTNET_CONFIG_RULES } from './dotnet-config';
import { DOTNET_MORE_RULES, DOTNET_TRANSPORT_RULES, missingHsts } from './dotnet-transport';
import { DOWNLOAD_EXEC_RULES } from './download-exec';
import { DYNAMIC_CODE_RULES } from './dynamic-code';
import { ESCAPE_BYPASS_RULES } from './escape-bypass';
import { EXCEPTION_RULES } from './exceptions';
import { EXPRESS_CONFIG_RULES } from './express-config';
import { FILE_PERMISSION_RULES } from './file-permissions';
import { goAnalyses } from './go';
import { GRPC_RULES } from './grpc';
import { HARDCODED_IV_RULES } from './hardcoded-iv';
import { badHexConversion } from './hex-encoding';
import { INCOMPLETE_ESCAPING_RULES } from './incomplete-escaping';
import { IOS_STORAGE_RULES } from './ios-storage';
import { IOS_WEBVIEW_RULES } from './ios-webview';
import { JACKSON_TYPING_RULES } from './jackson-typing';
import { JVM_CONTRACT_RULES } from './jvm-contracts';
import { JVM_INSECURE_API_RULES } from './jvm-insecure-apis';
import { JWT_RULES } from './jwt';
import { LEGACY_CRYPTO_API_RULES } from './legacy-crypto-apis';
import { MASS_ASSIGNMENT_RULES } from './mass-assignment';
import { MEMORY_SAFETY_RULES } from './memory-safety';
import { NETWORK_RULES } from './network';
import { PASSWORD_HASH_RULES } from './password-hash';
import { PHP_DYNAMIC_RULES } from './php-dynamic';
import { PROTOTYPE_POLLUTION_RULES } from './prototype-pollution';
import { PYTHON_CALL_RULES, pythonCallFindings } from './python-call-rules';
import { RAILS_CONFIG_RULES } from './rails-config';
import { RAILS_CONTROLLER_RULES } from './rails-controllers';
import { REDOS_RULES } from './redos';
import { RISKY_API_RULES } from './risky-apis';
import { SAME_SITE_RULES } from './same-site';
import { runScopedRules } from './scoped';
import { SCOPED_RULES } from './scoped-rules';
import { SECURITY_RULES } from './security';
import { CRYPTO_RULES } from './security-crypto';
import { SECURITY_HEADER_RULES } from './security-headers';
import { WEB_SECURITY_RULES } from './security-web';
import { SESSION_RULES } from './sessions';
import { TEMP_PATH_RULES } from './temp-paths';
import { trojanSource } from './trojan-source';
import type { Captures, RuleDefinition } from './types';
import { UNMAINTAINED_LIBRARY_RULES } from './unmaintained-libraries';
import { unusedVariables } from './unused';
import { WILDCARD_INJECTION_RULES } from './wildcard-injection';
import { JVM_XXE_RULES } from './xxe-jvm';
import { NATIVE_XXE_RULES } from './xxe-native';

export const RULES: RuleDefinition[] = [
  ...BUG_RULES,
  ...SECURITY_RULES,
  ...CRYPTO_RULES,
  ...WEB_SECURITY_RULES,
  ...FILE_PERMISSION_RULES,
  ...NETWORK_RULES,
  ...RISKY_API_RULES,
  ...HARDCODED_IV_RULES,
  ...EXCEPTION_RULES,
  ...BLOCK_RULES,
  ...CONDITION_RULES,
  ...JVM_CONTRACT_RULES,
  ...COMMENT_RULES,
  ...SESSION_RULES,
  ...API_MISUSE_RULES,
  ...CLEARTEXT_RULES,
  ...GRPC_RULES,
  ...BROWSER_RULES,
  ...DOM_SINK_RULES,
  ...AWS_CDK_RULES,
  ...SECURITY_HEADER_RULES,
  ...EXPRESS_CONFIG_RULES,
  ...CSRF_RULES,
  ...MASS_ASSIGNMENT_RULES,
  ...REDOS_RULES,
  ...RAILS_CONFIG_RULES,
  ...RAILS_CONTROLLER_RULES,
  ...INCOMPLETE_ESCAPING_RULES,
  ...AIRFLOW_RULES,
  ...CLEARTEXT_CREDENTIAL_RULES,
  ...ESCAPE_BYPASS_RULES,
  ...WILDCARD_INJECTION_RULES,

  // Families of the field's per-language rule sets (issue 44).
  ...MEMORY_SAFETY_RULES,
  ...DOWNLOAD_EXEC_RULES,
  ...ANDROID_RULES,
  ...IOS_STORAGE_RULES,
  ...JWT_RULES,
  ...CORS_RULES,
  ...PHP_DYNAMIC_RULES,
  ...PASSWORD_HASH_RULES,
  ...DOTNET_CONFIG_RULES,
  ...JACKSON_TYPING_RULES,
  ...JVM_DESERIALIZATION_RULES,
  ...IOS_WEBVIEW_RULES,
  ...DOTNET_TRANSPORT_RULES,
  ...DOTNET_MORE_RULES,
  ...ANDROID_STORAGE_RULES,
  ...JVM_XXE_RULES,
  ...NATIVE_XXE_RULES,
  ...PROTOTYPE_POLLUTION_RULES,
  ...LEGACY_CRYPTO_API_RULES,
  ...JVM_INSECURE_API_RULES,
  ...TEMP_PATH_RULES,
  ...UNMAINTAINED_LIBRARY_RULES,
  ...DYNAMIC_CODE_RULES,
  ...SAME_SITE_RULES,
];

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

interface Combined {
  query: Query;
  ruleOfPattern: RuleDefinition[];
}
const combined = new Map<string, Combined>();

/**
 * The active rules' queries for a language as one query (one pattern list), so the tree is matched in a single
 * pass; each pattern is traced back to its rule by where it starts in the combined source. Cached per rule set.
 */
function combinedQuery(rules: RuleDefinition[], language: CodeLanguage): Combined | undefined {
  const key = `${language}:${rules.map((r) => r.id).join(',')}`;
  const cached = combined.get(key);
  if (cached) return cached;
  const lang = loadedLanguage(language);
  if (!lang || rules.length === 0) return undefined;
  let source = '';
  const ranges: { start: number; rule: RuleDefinition }[] = [];
  for (const rule of rules) {
    ranges.push({ start: source.length, rule });
    source += `${rule.languages[language]}\n`;
  }
  const query = new Query(lang, source);
  const ruleOfPattern: RuleDefinition[] = [];
  for (let i = 0; i < query.patternCount(); i += 1) {
    const at = query.startIndexForPattern(i);
    let owner = ranges[0] as { start: number; rule: RuleDefinition };
    for (const range of ranges) if (range.start <= at) owner = range;
    ruleOfPattern.push(owner.rule);
  }
  const entry = { query, ruleOfPattern };
  combined.set(key, entry);
  return entry;
}

export function runRules(
  parsed: ParsedSource,
  categories: Exclude<FindingCategory, 'complexity'>[],
  project?: TaintProject,
  threatModel: ThreatModel = 'web',
): Finding[] {
  const findings: Finding[] = [];
  const active = RULES.filter(
    (rule) =>
      categories.includes(rule.category) &&
      rule.languages[parsed.language] !== undefined &&
      (!rule.needles || rule.needles.some((n) => parsed.source.includes(n))) &&
      (rule.needlesByLanguage?.[parsed.language]?.some((n) => parsed.source.includes(n)) ?? true) &&
      !rule.unlessByLanguage?.[parsed.language]?.some((n) => parsed.source.includes(n)),
  );
  const all = combinedQuery(active, parsed.language);
  const seen = new Map<string, Set<string>>();
  for (const match of all ? all.query.matches(parsed.tree.rootNode, { matchLimit: 4096 }) : []) {
    const rule = all?.ruleOfPattern[match.patternIndex];
    if (!rule) continue;
    const seenForRule = seen.get(rule.id) ?? new Set<string>();
    seen.set(rule.id, seenForRule);
    if (seenForRule.size >= MAX_FINDINGS_PER_RULE) continue;
    const captures: Captures = {};
    let at: (typeof match.captures)[number]['node'] | undefined;
    for (const { name, node } of match.captures) {
      captures[name] = {
        text: parsed.source.slice(node.startIndex, node.endIndex),
        type: node.type,
        row: node.startPosition.row,
        column: node.startPosition.column,
      };
      if (name === 'finding') at = node;
    }
    if (!at || (rule.check && !rule.check(captures))) continue;
    const key = `${at.startIndex}:${at.endIndex}`;
    if (seenForRule.has(key)) continue;
    seenForRule.add(key);
    findings.push(toFinding(rule, parsed, at, captures));
  }
  if (categories.includes('bug')) findings.push(...unusedVariables(parsed));
  findings.push(...runScopedRules(parsed, SCOPED_RULES, categories));
  // The dataflow reports both: injections (security) and the conditions it folds to a constant (bug).
  findings.push(
    ...taintFindings(parsed, project, threatModel).filter((f) => categories.some((c) => c === f.category)),
  );
  if (categories.includes('security'))
    findings.push(
      ...insecureCookies(parsed),
      ...missingHsts(parsed),
      ...badHexConversion(parsed),
      ...pythonCallFindings(parsed),
      ...trojanSource(parsed),
      ...archiveExtraction(parsed),
    );
  findings.push(...goAnalyses(parsed).filter((f) => categories.some((c) => c === f.category)));
  return withoutYielded(findings);
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

/**
 * One finding per line and weakness: a pattern rule's finding yields to the rule it names (the same weakness, seen by
 * the dataflow) on the same line when that one is at least as sure; a dataflow audit that is less sure than the
 * pattern (a file's content unpickled, which no dataflow follows) gives way to the pattern instead.
 */
function withoutYielded(findings: Finding[]): Finding[] {
  const yielding = new Map(
    [...RULES, ...PYTHON_CALL_RULES].filter((r) => r.yieldsTo).map((r) => [r.id, r.yieldsTo]),
  );
  if (!findings.some((f) => yielding.has(f.rule_id))) return findings;
  const rank = (f: Finding) => CONFIDENCE_LEVELS.indexOf(f.confidence);
  const best = new Map<string, number>();
  for (const f of findings) {
    const key = `${f.rule_id}:${f.line}`;
    best.set(key, Math.max(best.get(key) ?? -1, rank(f)));
  }
  const outranked = new Set<string>();
  for (const f of findings) {
    const to = yielding.get(f.rule_id);
    const theirs = to === undefined ? undefined : best.get(`${to}:${f.line}`);
    if (theirs !== undefined && theirs < rank(f)) outranked.add(`${to}:${f.line}`);
  }
  return findings.filter((f) => {
    if (outranked.has(`${f.rule_id}:${f.line}`)) return false;
    const to = yielding.get(f.rule_id);
    const theirs = to === undefined ? undefined : best.get(`${to}:${f.line}`);
    return theirs === undefined || theirs < rank(f);
  });
}
