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

export const JVM_XXE_RULES: RuleDefinition[] = [
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
