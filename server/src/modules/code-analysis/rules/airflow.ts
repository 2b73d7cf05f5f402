import type { RuleDefinition } from './types';

/**
 * Airflow's `BashOperator` runs `bash_command` through a shell (CWE-78). A command built with an f-string, `format`,
 * `%` or `+` from variables, or templated from `dag_run.conf` (what whoever triggers the DAG sends), lets that data
 * become shell syntax, as Semgrep's `formatted-string-bashoperator` reports; pass values through `env=` and quote
 * them in the script instead.
 */
export const AIRFLOW_RULES: RuleDefinition[] = [
  {
    id: 'security/airflow-command-injection',
    needles: ['BashOperator'],
    category: 'security',
    severity: 'high',
    confidence: 'medium',
    cwe: 'CWE-78',
    message:
      '`bash_command` of `{fn}` is built from data ({v}): whatever it holds is run as shell syntax; pass values through `env=` and quote them in the script.',
    languages: {
      python: `((call function: [(identifier) (attribute)] @fn arguments: (argument_list (keyword_argument name: (identifier) @k value: (_) @v))) @finding
                 (#match? @fn "BashOperator$") (#eq? @k "bash_command"))`,
    },
    check: (c) => {
      const v = c.v;
      if (!v) return false;
      if (v.type === 'string')
        return (
          (/^[rRbB]?[fF][rRbB]?["']/.test(v.text) && /\{[^{]/.test(v.text)) ||
          /\{\{\s*dag_run\.conf/.test(v.text)
        );
      if (v.type === 'binary_operator')
        return (
          /[%+]/.test(v.text) &&
          /(^|[^"'\w])[A-Za-z_]\w*(\.|\[|\s*$|\s*[+%)])/.test(
            v.text.replace(/(["'])(?:\\.|(?!\1).)*\1/g, '""'),
          )
        );
      return v.type === 'call' && /\.format\(/.test(v.text);
    },
  },
];
