import type { RuleDefinition } from './types';

/**
 * A fixed file name under the system's temporary directory (CWE-377), where the directory is named by an API
 * rather than a literal `/tmp/` (rules/risky-apis.ts): Rust `env::temp_dir().join("report.txt")`, C#
 * `Path.Combine(Path.GetTempPath(), "report.txt")`. Another local user can create or link that name first.
 * `tempfile`/`Path.GetTempFileName()` and names built from a random part are not reported.
 */
export const TEMP_PATH_RULES: RuleDefinition[] = [
  {
    id: 'security/temp-dir-fixed-name',
    needles: ['temp_dir', 'GetTempPath'],
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-377',
    message:
      '`{finding}` uses a fixed name in the shared temporary directory, which another user can create or link first; use the tempfile crate / Path.GetTempFileName().',
    languages: {
      rust: `((call_expression function: (field_expression value: (call_expression function: (_) @td) field: (field_identifier) @j) arguments: (arguments . (string_literal) .)) @finding
        (#match? @td "^((std::)?env::)?temp_dir$") (#eq? @j "join"))`,
      csharp: `((invocation_expression function: (member_access_expression) @fn arguments: (argument_list . (argument (invocation_expression) @td) . (argument (string_literal)) .)) @finding
        (#match? @fn "^Path\\\\.Combine$") (#match? @td "^(System\\\\.IO\\\\.)?Path\\\\.GetTempPath\\\\(\\\\)$"))`,
    },
  },
];
