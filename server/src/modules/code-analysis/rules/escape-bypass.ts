import type { RuleDefinition } from './types';

/**
 * Values marked as already safe for a template, so the template's escaping skips them (CWE-79; gosec G203, Semgrep's
 * template-html-does-not-escape): Go's html/template `template.HTML(x)`, `JS`, `URL`, `HTMLAttr`, `CSS`, `JSStr`,
 * `Srcset` of anything but a string literal. An audit: the value may well be trusted, hence low confidence.
 */
export const ESCAPE_BYPASS_RULES: RuleDefinition[] = [
  {
    id: 'security/template-escape-bypass',
    needles: ['template.'],
    needlesByLanguage: { go: ['"html/template"'] },
    category: 'security',
    severity: 'medium',
    confidence: 'low',
    cwe: 'CWE-79',
    message:
      '`{finding}` marks a non-constant value as safe markup, so html/template does not escape it; pass the plain string and let the template escape it, or sanitise it first (bluemonday).',
    languages: {
      go: `((call_expression function: (selector_expression operand: (identifier) @p field: (field_identifier) @f)
              arguments: (argument_list . (_) @v .)) @finding
             (#eq? @p "template") (#match? @f "^(HTML|JS|URL|HTMLAttr|CSS|JSStr|Srcset)$")
             (#not-match? @v "^[\\"\`]"))`,
    },
  },
];
