import { callText } from './security-crypto';
import type { RuleDefinition } from './types';

/**
 * XML parsers told to resolve external entities (CWE-611) outside the JVM, .NET and scripting languages: Foundation's
 * `XMLParser.shouldResolveExternalEntities = true` (off by default; the Semgrep registry's Swift XXE rule), and
 * libxml2's `XML_PARSE_NOENT` (substitute entities) and `xmlSubstituteEntitiesDefault(1)` in C and C++ (CodeQL
 * `cpp/external-entity-expansion`). `XML_PARSE_DTDLOAD` alone loads the DTD without substituting and is not reported.
 */
const LIBXML = `((identifier) @finding (#eq? @finding "XML_PARSE_NOENT"))
  ${callText('call_expression', '^xmlSubstituteEntitiesDefault\\(\\s*1\\s*\\)$')}`;

export const NATIVE_XXE_RULES: RuleDefinition[] = [
  {
    id: 'security/xxe-entity-resolution',
    needles: ['shouldResolveExternalEntities', 'XML_PARSE_NOENT', 'xmlSubstituteEntitiesDefault'],
    category: 'security',
    severity: 'high',
    confidence: 'high',
    cwe: 'CWE-611',
    message:
      '`{finding}` makes the XML parser resolve external entities, so a document can read local files or reach internal hosts (XXE); leave entity resolution off.',
    languages: {
      swift: `((assignment target: (directly_assignable_expression (navigation_expression suffix: (navigation_suffix suffix: (simple_identifier) @p))) result: (boolean_literal) @v) @finding
        (#eq? @p "shouldResolveExternalEntities") (#eq? @v "true"))`,
      c: LIBXML,
      cpp: LIBXML,
    },
  },
];
