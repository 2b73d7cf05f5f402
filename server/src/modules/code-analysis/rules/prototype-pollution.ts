import { forJs, type RuleDefinition } from './types';

/**
 * Prototype pollution by assignment (CWE-1321), as the Semgrep registry's `prototype-pollution-assignment` reports
 * it: `obj[a][b] = value` with both keys taken from the request, so `a = "__proto__"` writes `b` onto every
 * object. Deep merges and path setters of request data are sinks of the dataflow (`prototype-pollution` in
 * taint/catalogues/javascript.ts). A `Map`, or a key checked against an allow-list first, is not reported.
 */
const REQUEST = '^(req|request|ctx|ctx\\\\.request)\\\\.(body|query|params)\\\\b';

export const PROTOTYPE_POLLUTION_RULES: RuleDefinition[] = [
  {
    id: 'security/prototype-pollution-assignment',
    needles: ['req', 'ctx'],
    category: 'security',
    severity: 'high',
    confidence: 'high',
    cwe: 'CWE-1321',
    message:
      '`{finding}` writes under two keys the request chooses: `__proto__` as the first changes every object; use a Map or check the keys against an allow-list.',
    languages:
      forJs(`((assignment_expression left: (subscript_expression object: (subscript_expression index: (_) @k1) index: (_) @k2)) @finding
        (#match? @k1 "${REQUEST}") (#match? @k2 "${REQUEST}"))`),
  },
];
