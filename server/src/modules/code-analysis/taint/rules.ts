import { NUMERIC_RULES } from './numeric/rules';
import type { TaintKind, TaintRuleMeta } from './types';

/** Metadata of the taint rules: one entry per vulnerability class. */
export const TAINT_RULES: Record<TaintKind, TaintRuleMeta> = {
  'sql-injection': {
    cwe: 'CWE-89',
    severity: 'critical',
    title: 'SQL injection',
    fix: 'pass the value as a bound parameter (placeholders such as ? or %s with a separate parameters argument) instead of building the SQL text',
  },
  'command-injection': {
    cwe: 'CWE-78',
    severity: 'critical',
    title: 'OS command injection',
    fix: 'run the program with an argument list and no shell, or quote the value (shlex.quote, escapeshellarg)',
  },
  'code-injection': {
    cwe: 'CWE-94',
    severity: 'critical',
    title: 'Code injection',
    fix: 'never evaluate input as code; parse it as data (JSON, ast.literal_eval) or dispatch through a fixed table',
  },
  xss: {
    cwe: 'CWE-79',
    severity: 'high',
    title: 'Cross-site scripting',
    fix: 'escape the value for HTML (html.escape, htmlspecialchars, a templating engine with auto-escaping) or set it as text',
  },
  'unsafe-deserialization': {
    cwe: 'CWE-502',
    severity: 'critical',
    title: 'Unsafe deserialization',
    fix: 'deserialize untrusted data only with a data-only format (JSON) or a safe loader (yaml.safe_load)',
  },
  'path-traversal': {
    cwe: 'CWE-22',
    severity: 'high',
    title: 'Path traversal',
    fix: 'reduce the value to a file name (basename, secure_filename) and check the resolved path stays inside the intended directory',
  },
  ssrf: {
    cwe: 'CWE-918',
    severity: 'high',
    title: 'Server-side request forgery',
    fix: 'only request URLs whose host is on an allow-list; never pass a user-supplied URL straight to an HTTP client',
  },
  'open-redirect': {
    cwe: 'CWE-601',
    severity: 'medium',
    title: 'Open redirect',
    fix: 'redirect only to relative paths or to hosts on an allow-list',
  },
  'ldap-injection': {
    cwe: 'CWE-90',
    severity: 'high',
    title: 'LDAP injection',
    fix: 'escape the value for LDAP filters (Encoder.encodeForLDAP, ldap3.utils.conv.escape_filter_chars) or bind it as a filter argument',
  },
  'xpath-injection': {
    cwe: 'CWE-643',
    severity: 'high',
    title: 'XPath injection',
    fix: 'pass the value as an XPath variable (XPathVariableResolver, lxml `$name` variables) instead of building the expression',
  },
  xxe: {
    cwe: 'CWE-611',
    severity: 'high',
    title: 'XML external entities (XXE)',
    fix: "keep external entities off (the parsers' default) or parse untrusted XML with defusedxml",
  },
  'header-injection': {
    cwe: 'CWE-113',
    severity: 'medium',
    title: 'HTTP response splitting',
    fix: 'encode the value (URLEncoder.encode, encodeURIComponent) or reject carriage returns and line feeds before putting it in a header or cookie',
  },
  'format-string': {
    cwe: 'CWE-134',
    severity: 'medium',
    title: 'Uncontrolled format string',
    fix: 'use a constant format string and pass the value as an argument (printf("%s", value))',
  },
  'log-injection': {
    cwe: 'CWE-117',
    severity: 'medium',
    title: 'Log injection',
    fix: 'strip or escape carriage returns and line feeds before logging the value (strings.ReplaceAll, strconv.Quote), or log it as a structured attribute, which the handler escapes',
  },
  'smtp-injection': {
    cwe: 'CWE-93',
    severity: 'medium',
    title: 'SMTP command injection',
    fix: 'parse the address first (net/mail ParseAddress, ParseAddressList) and pass the parsed address; reject carriage returns and line feeds',
  },
  reflection: {
    cwe: 'CWE-470',
    severity: 'high',
    title: 'Unsafe reflection',
    fix: 'map the input to a class or module from a fixed allow-list instead of loading the name it gives',
  },
  'config-setting': {
    cwe: 'CWE-15',
    severity: 'medium',
    title: 'External control of a system setting',
    fix: 'choose the setting (catalog, system property, environment variable) from a fixed list, not from input',
  },
  'trust-boundary': {
    cwe: 'CWE-501',
    severity: 'medium',
    title: 'Trust boundary violation',
    fix: 'validate the value against what the application expects before storing it in the session',
  },
  'nosql-injection': {
    cwe: 'CWE-943',
    severity: 'high',
    title: 'NoSQL injection',
    fix: 'convert each value to the type the query expects (String(x), Number(x)) or strip operators (mongo-sanitize), and never build `$where` code from input',
  },
  'prototype-pollution': {
    cwe: 'CWE-1321',
    severity: 'high',
    title: 'Prototype pollution',
    fix: 'copy only known keys (pick, an allow-list), reject `__proto__`, `constructor` and `prototype`, or merge into `Object.create(null)`',
  },
  'regex-injection': {
    cwe: 'CWE-1333',
    severity: 'medium',
    title: 'Regular expression injection',
    fix: 'escape the value before putting it in a pattern (re.escape, Pattern.quote, Regexp.escape, preg_quote, Regex.Escape, escape-string-regexp), or match it as plain text',
  },
  'template-injection': {
    cwe: 'CWE-1336',
    severity: 'high',
    title: 'Server-side template injection',
    fix: 'render a fixed template file and pass the input as a variable of its context; never compile a template from input',
  },
  ...NUMERIC_RULES,
};
