import type { RuleDefinition } from './types';

/** Rails settings and declarations that Brakeman and Semgrep's ruby rules report. */
export const RAILS_CONFIG_RULES: RuleDefinition[] = [
  {
    // Brakeman's ValidationRegex (CWE-777): `^`/`$` match at any line break in Ruby, so `"ok\n<script>…"` passes a
    // format validation anchored with them; `\A` and `\z` anchor the whole string.
    id: 'security/validation-regex-line-anchors',
    needles: ['validates', 'format'],
    category: 'security',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-777',
    message:
      '`{finding}` anchors the validation with ^ or $, which match at any line break in Ruby: a value with a newline passes; use \\A and \\z.',
    languages: {
      // `validates :f, format: { with: /…/ }` and `validates_format_of :f, :with => /…/`.
      ruby: `((pair key: [(hash_key_symbol) (simple_symbol)] @k value: (regex) @re) @finding (#match? @k "^:?with$") (#match? @re "^/\\\\^|[$]/[a-z]*$"))`,
    },
  },
  {
    // Brakeman's CookieSerialization: Marshal-serialised cookies run code on load once the secret leaks.
    id: 'security/cookie-marshal-serializer',
    needles: ['cookies_serializer'],
    category: 'security',
    severity: 'high',
    confidence: 'high',
    cwe: 'CWE-502',
    message:
      '`{finding}` deserialises cookies with Marshal: anyone who learns the secret key base can make the server run code; use `:json`.',
    languages: {
      ruby: `((assignment left: (call method: (identifier) @m) right: (simple_symbol) @v) @finding
               (#eq? @m "cookies_serializer") (#match? @v "^:(marshal|hybrid)$"))`,
    },
  },
  {
    // Brakeman's JSONEntityEscape: HTML characters in JSON rendered into a page are no longer escaped.
    id: 'security/json-html-escape-off',
    needles: ['escape_html_entities_in_json'],
    category: 'security',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-79',
    message:
      '`{finding}` stops escaping <, > and & in JSON, so a value embedded in a page as JSON can close the script tag; keep it true.',
    languages: {
      ruby: `((assignment left: (call method: (identifier) @m) right: (false)) @finding (#eq? @m "escape_html_entities_in_json"))`,
    },
  },
  {
    // Brakeman's ModelAttrAccessible: a role or ownership attribute open to mass assignment.
    id: 'security/mass-assignable-privilege',
    needles: ['attr_accessible', 'permit'],
    category: 'security',
    severity: 'high',
    confidence: 'medium',
    cwe: 'CWE-915',
    message:
      '`{finding}` lets a request set a privilege or ownership attribute through mass assignment; remove it from `attr_accessible` and set it explicitly.',
    languages: {
      // Brakeman's PermitAttributes too: strong parameters that permit such an attribute.
      ruby: `((call method: (identifier) @m arguments: (argument_list (simple_symbol) @a)) @finding
               (#match? @m "^(attr_accessible|permit)$") (#match? @a "^:(admin|is_admin|role|roles|banned|account_id|user_id|owner_id|permissions?|superuser|approved|verified)$"))`,
    },
  },
  {
    // Brakeman's AttrProtected: a deny-list leaves every attribute added later (a role, an owner id) open to mass
    // assignment; `attr_accessible` or strong parameters list what may be set.
    id: 'security/mass-assignment-denylist',
    needles: ['attr_protected'],
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-915',
    message:
      '`{finding}` protects only the attributes it names: any other attribute can be set by mass assignment; list the assignable ones instead (strong parameters, `attr_accessible`).',
    languages: {
      ruby: `((call method: (identifier) @m arguments: (argument_list)) @finding (#eq? @m "attr_protected"))`,
    },
  },
];
