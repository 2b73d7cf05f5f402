import { cleartextRequest } from './cleartext-urls';
import { STRING_TYPES } from './security-secrets';
import { forJs, type RuleDefinition } from './types';

/**
 * Credentials sent where they are not protected (CWE-522): a URL that carries a password or token in its query
 * string or user part (`?password=…`, `?access_token=…`, `http://user:pw@host`), which proxies, logs and browser
 * history keep, and basic authentication given to a request over plain HTTP (`requests.get("http://…", auth=…)`,
 * axios `{ auth }`), which sends the password readable by anyone on the path.
 */
const QUERY_SECRET =
  /[?&](password|passwd|pwd|pass|token|access_token|api_?key|apikey|secret|client_secret|auth)=([^&#'"\s$%{]|["'`]$|\{|\$\{)/i;
const URL_START = /^[A-Za-z@$]{0,2}("""|'''|["'`])(https?|wss?|ftp):\/\//i;

export function credentialUrl(literal: string): boolean {
  if (!URL_START.test(literal)) return false;
  return (
    QUERY_SECRET.test(literal) ||
    /^[A-Za-z@$]{0,2}("""|'''|["'`])https?:\/\/[^/\s:@'"]+:[^/\s:@'"$%{}<]{3,}@/.test(literal)
  );
}

export const CLEARTEXT_CREDENTIAL_RULES: RuleDefinition[] = [
  {
    id: 'security/credentials-in-url',
    needles: ['://'],
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-522',
    message:
      '{finding} puts a credential in the URL: proxies, server logs and browser history keep it; send it in a header or the body, over HTTPS.',
    languages: Object.fromEntries(
      Object.entries(STRING_TYPES).map(([lang, types]) => [
        lang,
        `(${types} @finding (#match? @finding "://"))`,
      ]),
    ),
    check: (c) => credentialUrl(c.finding?.text ?? ''),
  },
  {
    id: 'security/basic-auth-over-http',
    needles: ['http://'],
    category: 'security',
    severity: 'high',
    confidence: 'high',
    cwe: 'CWE-522',
    message:
      '`{finding}` sends a password with basic authentication over plain HTTP: anyone on the path reads it; use https://.',
    languages: {
      python: `((call function: (_) @fn arguments: (argument_list (_) @url (keyword_argument name: (identifier) @k))) @finding
                 (#eq? @k "auth") (#match? @url "^[A-Za-z]{0,2}[\\"']+[Hh][Tt][Tt][Pp]://"))`,
      ...forJs(`((call_expression function: (_) @fn arguments: (arguments (_) @url (object (pair key: (property_identifier) @k)))) @finding
                   (#eq? @k "auth") (#match? @url "^[\\"'\`][Hh][Tt][Tt][Pp]://"))`),
      // HTTParty/RestClient options (`basic_auth: {…}`, `password: …`) beside an http:// URL.
      ruby: `((call method: (_) @fn arguments: (argument_list (_) @url (pair key: (hash_key_symbol) @k))) @finding
               (#match? @k "^(basic_auth|digest_auth|password)$") (#match? @url "^[\\"'][Hh][Tt][Tt][Pp]://"))`,
      // Guzzle's `['auth' => [$user, $password]]` and Laravel's `Http::withBasicAuth(…)->get('http://…')`.
      php: `((member_call_expression name: (name) @fn arguments: (arguments (argument (_) @url) (argument (array_creation_expression (array_element_initializer (string) @k))))) @finding
              (#match? @k "^.auth.$") (#match? @url "^[\\"'][Hh][Tt][Tt][Pp]://"))
            ((member_call_expression object: (_) @auth name: (name) @fn arguments: (arguments . (argument (_) @url))) @finding
              (#match? @auth "with(Basic|Digest)Auth") (#match? @url "^[\\"'][Hh][Tt][Tt][Pp]://"))`,
      // `curl -u user:pw http://…`, `wget --password=… http://…`.
      bash: `((command name: (command_name) @fn argument: [(word) (string)] @flag argument: [(word) (string) (raw_string)] @url) @finding
               (#match? @fn "^(curl|wget)$") (#match? @flag "^(-u|--user|--password=.*|--http-password=.*|--user=.*)$")
               (#match? @url "^[\\"']?[Hh][Tt][Tt][Pp]://"))`,
    },
    check: (c) => c.fn?.type === 'command_name' || cleartextRequest(c.fn?.text ?? '', c.url?.text ?? ''),
  },
];
