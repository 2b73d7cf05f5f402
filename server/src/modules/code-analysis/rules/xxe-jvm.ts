import { callText } from './security-crypto';
import type { RuleDefinition } from './types';

/**
 * XML parser factories in Kotlin and Scala (CWE-611), as for Java (rules/security.ts) and as the Semgrep registry's
 * Scala and Kotlin XXE rules report them: the JDK's DocumentBuilderFactory, SAXParserFactory and XMLInputFactory
 * resolve external entities unless told not to. A file that hardens a factory (the `disallow-doctype-decl` or
 * `external-general-entities` features, `SUPPORT_DTD` or `ACCESS_EXTERNAL_DTD` off) is not reported.
 */
const FACTORY =
  '^(javax\\\\.xml\\\\.parsers\\\\.)?(DocumentBuilderFactory|SAXParserFactory|XMLInputFactory|TransformerFactory)\\\\.new(Instance|Factory|DefaultInstance)\\\\(';
const HARDENED = [
  'disallow-doctype-decl',
  'external-general-entities',
  'SUPPORT_DTD',
  'ACCESS_EXTERNAL_DTD',
  'isExpandEntityReferences = false',
  'setExpandEntityReferences(false)',
];

/**
 * A parser told in so many words to process DTDs or external entities: the `disallow-doctype-decl` feature set to
 * false, the external-entity or external-DTD features set to true, StAX's `SUPPORT_DTD` or
 * `IS_SUPPORTING_EXTERNAL_ENTITIES` set to true (Semgrep documentbuilderfactory-disallow-doctype-decl-false,
 * FindSecBugs XXE_*). The file then mentions the feature, so the factory rule above (and Java's) reads it as
 * hardened: this names the line that undoes it.
 */
const DISABLED = String.raw`\.(setFeature|setProperty)\(\s*("[^"]*disallow-doctype-decl"\s*,\s*false|("[^"]*(external-general-entities|external-parameter-entities|load-external-dtd)"|(XMLInputFactory\.)?(SUPPORT_DTD|IS_SUPPORTING_EXTERNAL_ENTITIES)|"javax\.xml\.stream\.(supportDTD|isSupportingExternalEntities)")\s*,\s*(true|Boolean\.TRUE))\s*\)$`;

export const JVM_XXE_RULES: RuleDefinition[] = [
  {
    id: 'security/xxe-protection-disabled',
    needles: ['setFeature', 'setProperty'],
    category: 'security',
    severity: 'high',
    confidence: 'medium',
    cwe: 'CWE-611',
    message:
      '`{finding}` turns the XML parser\'s protection against external entities off (XXE); set "http://apache.org/xml/features/disallow-doctype-decl" to true and external entities to false.',
    languages: {
      java: callText('method_invocation', DISABLED),
      kotlin: callText('call_expression', DISABLED),
      scala: callText('call_expression', DISABLED),
    },
  },
  {
    id: 'security/xxe-parser-factory',
    needles: ['Factory'],
    unlessByLanguage: { kotlin: HARDENED, scala: HARDENED },
    category: 'security',
    severity: 'high',
    confidence: 'medium',
    cwe: 'CWE-611',
    message:
      '`{finding}` resolves external entities in the XML it parses (XXE); set the "http://apache.org/xml/features/disallow-doctype-decl" feature to true.',
    languages: {
      kotlin: `((call_expression) @finding (#match? @finding "${FACTORY}"))`,
      scala: `((call_expression) @finding (#match? @finding "${FACTORY}"))`,
    },
  },
];
