import type { RuleDefinition } from './types';

/**
 * .NET settings that SecurityCodeScan and the Roslyn security analyzers report: Json.NET told to read type names
 * from the payload (CWE-502, `TypeNameHandling` other than `None`: the payload picks a class to instantiate,
 * SCS0028/CA2326), and ASP.NET request validation turned off for an action (`[ValidateInput(false)]`, CWE-20,
 * SCS0017).
 */
export const DOTNET_CONFIG_RULES: RuleDefinition[] = [
  {
    id: 'security/json-type-name-handling',
    needles: ['TypeNameHandling'],
    category: 'security',
    severity: 'high',
    confidence: 'medium',
    cwe: 'CWE-502',
    message:
      '`{finding}` lets the JSON payload name the .NET type to create, which runs gadget code; keep TypeNameHandling.None or bind a SerializationBinder that allows only your types.',
    languages: {
      csharp: `((assignment_expression left: (_) @p right: (member_access_expression expression: (identifier) @t name: (identifier) @v)) @finding
        (#match? @p "TypeNameHandling$") (#eq? @t "TypeNameHandling") (#match? @v "^(All|Objects|Arrays|Auto)$"))`,
    },
  },
  {
    id: 'security/request-validation-disabled',
    needles: ['ValidateInput'],
    category: 'security',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-20',
    message:
      '`{finding}` turns off ASP.NET request validation for the action; keep it on and encode what the action writes back.',
    languages: {
      csharp: `((attribute name: (identifier) @n (attribute_argument_list (attribute_argument (boolean_literal) @v))) @finding (#eq? @n "ValidateInput") (#eq? @v "false"))`,
    },
  },
];
