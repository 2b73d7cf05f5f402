/**
 * Whether a name says "credential" and a literal looks like a real one. Kept in code rather than query predicates:
 * the name is split into words (`dbPassword`, `DB_PASSWORD`, `db-password`, `this.password`, `"SECRET_KEY"`), and
 * the value is weighed (placeholders, prose, identifiers, repeated characters stay quiet), which a single regular
 * expression per language cannot say.
 */

/** Words that alone make a name a credential's. */
const CREDENTIAL_WORDS = new Set([
  'password',
  'passwd',
  'pwd',
  'pass',
  'passphrase',
  'secret',
  'secrets',
  'token',
  'apikey',
  'credential',
  'credentials',
  // Short forms gosec's G101 and gitleaks read as credentials too (`pw`, `dbCred`, `bearer`).
  'pw',
  'cred',
  'creds',
  'bearer',
]);
/** Pairs of words that do (`api_key`, `accessKey`, `private_key`, `SECRET_KEY` is already `secret`). */
const CREDENTIAL_PAIRS = [
  ['api', 'key'],
  ['access', 'key'],
  ['private', 'key'],
  ['signing', 'key'],
  ['encryption', 'key'],
  ['master', 'key'],
  ['auth', 'key'],
  ['app', 'key'],
  ['license', 'key'],
  ['client', 'key'],
];
/**
 * A last word that makes the name describe the credential rather than hold it (`password_field`, `TOKEN_URL`,
 * `secretName`, `password_min_length`, `token_type`): such names hold labels, URLs, keys of a map, or settings.
 */
const DESCRIBING_WORDS = new Set([
  'name',
  'names',
  'field',
  'fields',
  'label',
  'prompt',
  'message',
  'msg',
  'text',
  'title',
  'url',
  'uri',
  'endpoint',
  'path',
  'file',
  'filename',
  'dir',
  'header',
  'param',
  'parameter',
  'regex',
  're',
  'pattern',
  'policy',
  'length',
  'len',
  'min',
  'max',
  'type',
  'id',
  'ids',
  'hint',
  'placeholder',
  'column',
  'attr',
  'attribute',
  'env',
  'var',
  'count',
  'enabled',
  'required',
  'expiry',
  'expires',
  'expiration',
  'ttl',
  'timeout',
  'format',
  'mode',
  'error',
  'errors',
  'reset',
  'rule',
  'rules',
  'validator',
  'strength',
  'location',
  'method',
  'scope',
  'scopes',
  'lifetime',
  'version',
  'prefix',
  'suffix',
  'chars',
  'size',
  'index',
  'input',
  'button',
  'form',
  'view',
  'page',
  'route',
  'template',
  'class',
  'selector',
  'query',
  'property',
  'setting',
  'option',
  'flag',
  'cache',
  'store',
  'manager',
  'provider',
  'service',
  'generator',
  'hash',
  'hasher',
  'encoder',
  'storage',
  'kind',
  'style',
  'icon',
]);

/** The words of an identifier or key: `dbPassword` → db, password; `SECRET_KEY` → secret, key. */
export function nameWords(name: string): string[] {
  const last = name
    .replace(/^[\s\S]*(\.|->|::|\[)/, '')
    .replace(/["'`:$@\]]/g, '')
    .trim();
  return last
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0);
}

/** `password`, `DB_PASSWORD`, `apiKey`, `client_secret`, `AUTH_TOKEN`; not `password_field`, `token_url`, `keyName`. */
export function credentialName(name: string): boolean {
  const words = nameWords(name);
  const last = words[words.length - 1];
  if (last === undefined || DESCRIBING_WORDS.has(last)) return false;
  // `set_password`, `setPassword` name a setter whose literal argument is the credential.
  if (words.some((w) => CREDENTIAL_WORDS.has(w))) return true;
  return CREDENTIAL_PAIRS.some(([a, b]) => {
    const i = words.indexOf(a as string);
    return i >= 0 && words[i + 1] === b;
  });
}

/** Values everyone knows are not real: placeholders, samples, masks. */
const PLACEHOLDER =
  /[Cc]hange_?-?me|CHANGE_?ME|[Ee]xample|[Pp]laceholder|[Yy]our[_-]|YOUR_|xxx|XXX|\*\*\*|[Dd]ummy|[Tt]est|TODO|todo|[Rr]edacted|REDACTED|[Ss]ample|[Ff]ake|[Ii]nsert|[Rr]eplace|<[^>]*>|^\.\.\.$|^([Nn]one|null|nil|undefined|true|false|default|[Ss]ecret|[Pp]assword|[Tt]oken)$/;
/** Text that is filled in later or read from elsewhere: `${DB_PASS}`, `{{ secret }}`, `%s`, `#{x}`, `$VAR`, `os.environ`. */
const INDIRECT = /\$\{|\{\{|#\{|%[sd(]|\{\d*\}|^\$[A-Za-z_]|^%\w+%$|^env:|^vault:|^ENV\[/;

/** A regular expression, not a value: `\w`, `[^…]`, `(?:…)`, `[A-Z]`. */
const REGEX = /\\[wdsbWDSB]|\[\^|\(\?|\[[A-Za-z0-9]-[A-Za-z0-9]/;

/** The literal's text without its delimiters and prefixes (`b"…"`, `@"…"`, `r#"…"#`, `"""…"""`). */
export function literalText(literal: string): string {
  const t = literal.trim();
  const m = /^(?:[A-Za-z@$]{0,2}#*)("""|'''|["'`])([\s\S]*)\1#*$/.exec(t);
  return m ? (m[2] ?? '') : t;
}

/** Bits of entropy per character (Shannon). */
export function shannon(text: string): number {
  const counts = new Map<string, number>();
  for (const ch of text) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/**
 * A literal that could be a real credential: at least five characters of varied text, not a placeholder, not text
 * to be filled in, not prose, a path or a URL, and not an identifier that names a credential (`"user_password"`,
 * `"X-Auth-Token"`: a map key or a header name).
 */
export function secretLiteral(literal: string): boolean {
  const v = literalText(literal);
  if (v.length < 5 || v.length > 400 || v.includes('\n')) return false;
  if (PLACEHOLDER.test(v) || INDIRECT.test(v)) return false;
  if (v.trim().split(/\s+/).length > 2) return false;
  if (/\s/.test(v) && /[="'<>()]/.test(v)) return false;
  if (REGEX.test(v)) return false;
  if (/^(https?|wss?|ftp):\/\/[^@]*$|^[./~]|^[A-Za-z]:\\/.test(v)) return false;
  if (/^[A-Za-z _.:-]+$/.test(v) && nameWords(v.replace(/[ .:-]/g, '_')).some((w) => CREDENTIAL_WORDS.has(w)))
    return false;
  if (new Set(v).size < 4) return false;
  return shannon(v) >= 1.9;
}

/**
 * A name whose only credential word is `token` also names the tokens of lexers, parsers and highlighters
 * (`{ token: "comment" }`, `token = "string-2"`): such a literal is a credential only when it looks
 * generated (mixed letters and digits, long enough), as an API or session token does.
 */
export function credentialValue(name: string, literal: string): boolean {
  if (!secretLiteral(literal)) return false;
  const words = nameWords(name).filter((w) => CREDENTIAL_WORDS.has(w));
  if (words.some((w) => w !== 'token')) return true;
  const v = literalText(literal);
  return v.length >= 12 && /[0-9]/.test(v) && /[A-Za-z]/.test(v) && !/^[a-z][a-z0-9.-]*$/.test(v);
}
