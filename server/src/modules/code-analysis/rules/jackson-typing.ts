import { callText } from './security-crypto';
import type { RuleDefinition } from './types';

/**
 * Jackson told to read class names from the payload (CWE-502, FindSecBugs JACKSON_UNSAFE_DESERIALIZATION, Semgrep's
 * jackson-unsafe-deserialization): `enableDefaultTyping()`, or `activateDefaultTyping` with a validator that allows
 * every subtype, lets the JSON name any class on the classpath to instantiate, which runs gadget chains.
 * `@JsonTypeInfo(use = Id.CLASS)` (or `MINIMAL_CLASS`) on a field does the same for that field's values; `Id.NAME`
 * maps logical names to the subtypes the code declares and is not reported.
 * `activateDefaultTyping` with a `BasicPolymorphicTypeValidator` allowing the application's own packages is not reported.
 */
export const JACKSON_TYPING_RULES: RuleDefinition[] = [
  {
    id: 'security/jackson-default-typing',
    needles: ['DefaultTyping', 'JsonTypeInfo'],
    category: 'security',
    severity: 'high',
    confidence: 'medium',
    cwe: 'CWE-502',
    message:
      '`{finding}` lets the JSON payload name the Java class to create, which runs gadget code; bind to concrete types, or allow only your own types with a BasicPolymorphicTypeValidator.',
    languages: {
      java: `((method_invocation name: (identifier) @m) @finding (#eq? @m "enableDefaultTyping"))
             ((method_invocation name: (identifier) @m arguments: (argument_list . (_) @v)) @finding
               (#eq? @m "activateDefaultTyping") (#match? @v "LaissezFaireSubTypeValidator"))
             ((annotation name: (identifier) @a arguments: (annotation_argument_list (element_value_pair key: (identifier) @k value: (_) @v))) @finding
               (#eq? @a "JsonTypeInfo") (#eq? @k "use") (#match? @v "(^|\\\\.)(CLASS|MINIMAL_CLASS)$"))`,
      // Kotlin: `@JsonTypeInfo(use = JsonTypeInfo.Id.CLASS)` on a property or class.
      kotlin: `((annotation) @finding (#match? @finding "^@JsonTypeInfo\\\\(.*use\\\\s*=\\\\s*([\\\\w.]+\\\\.)?(CLASS|MINIMAL_CLASS)\\\\b"))
               ${callText('call_expression', '\\.enableDefaultTyping\\(')}`,
    },
  },
];
