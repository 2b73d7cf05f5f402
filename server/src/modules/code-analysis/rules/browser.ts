import { forJs, type RuleDefinition } from './types';

/** Names of values that must not be kept in clear: passwords, secrets, card numbers (not session ids or settings). */
const SENSITIVE = /(passw(or)?d|passwd|\bpwd|secret|credit_?card|card_?number|\bcvv|\bssn)/i;

/** What the browser's own APIs are told to trust or keep, and what a web server shows (CodeQL's and Semgrep's JS rules). */
export const BROWSER_RULES: RuleDefinition[] = [
  {
    // A password or secret written to the browser's `localStorage`/`sessionStorage` (CWE-312, CodeQL
    // js/clear-text-storage-of-sensitive-data): any script on the origin, and anyone with the profile on disk,
    // reads it back in clear.
    id: 'security/sensitive-data-in-web-storage',
    needles: ['localStorage', 'sessionStorage'],
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-312',
    message:
      '`{finding}` keeps a password or secret in web storage, readable in clear by any script on the page and on disk; keep only a short-lived session token there, or nothing.',
    languages:
      forJs(`((call_expression function: (member_expression object: (_) @o property: (property_identifier) @m)
                         arguments: (arguments . (_) @key . (_) @value .)) @finding
                       (#match? @o "^(window\\\\.)?(localStorage|sessionStorage)$") (#eq? @m "setItem"))
                      ((assignment_expression left: [(member_expression object: (_) @o property: (property_identifier) @key)
                                                     (subscript_expression object: (_) @o index: (string) @key)]) @finding
                       (#match? @o "^(window\\\\.)?(localStorage|sessionStorage)$"))`),
    check: (c) => {
      // The key names what is stored; a value that is itself the password variable says the same.
      return (
        SENSITIVE.test(c.key?.text ?? '') || (c.value?.type === 'identifier' && SENSITIVE.test(c.value.text))
      );
    },
  },
  {
    // Semgrep's wildcard-postmessage-configuration: any window, whatever its origin, receives the message.
    id: 'security/postmessage-any-origin',
    needles: ['postMessage'],
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-345',
    message:
      "`{finding}` sends the message to whatever origin the target window has loaded; name the expected origin (`postMessage(data, 'https://app.example.com')`).",
    languages: forJs(`((call_expression function: (member_expression property: (property_identifier) @m)
                         arguments: (arguments . (_) . (string (string_fragment) @origin) .)) @finding
                       (#eq? @m "postMessage") (#eq? @origin "*"))`),
  },
  {
    // AngularJS Strict Contextual Escaping turned off: every binding is trusted as HTML, URL or script.
    id: 'security/angular-sce-disabled',
    needles: ['$sceProvider'],
    category: 'security',
    severity: 'high',
    confidence: 'high',
    cwe: 'CWE-79',
    message:
      '`{finding}` turns off AngularJS Strict Contextual Escaping, so bound values are inserted as trusted HTML and URLs; leave $sce enabled.',
    languages:
      forJs(`((call_expression function: (member_expression object: (identifier) @o property: (property_identifier) @m)
                         arguments: (arguments . (false) .)) @finding
                       (#eq? @o "$sceProvider") (#eq? @m "enabled"))`),
  },
  {
    // react-markdown told to pass raw HTML through (`allowDangerousHtml`, `escapeHtml={false}`, rehype-raw).
    id: 'security/markdown-raw-html',
    needles: ['allowDangerousHtml', 'escapeHtml', 'rehypeRaw'],
    category: 'security',
    severity: 'high',
    confidence: 'medium',
    cwe: 'CWE-79',
    message:
      '`{finding}` renders the HTML inside the Markdown as is, so a script or event handler in it runs; keep raw HTML off or sanitise it (rehype-sanitize).',
    languages: Object.fromEntries(
      ['javascript', 'tsx'].map((l) => [
        l,
        `((jsx_attribute (property_identifier) @a) @finding (#eq? @a "allowDangerousHtml"))
         ((jsx_attribute (property_identifier) @a (jsx_expression (false))) @finding (#eq? @a "escapeHtml"))
         ((jsx_attribute (property_identifier) @a (jsx_expression (array (identifier) @p))) @finding
           (#eq? @a "rehypePlugins") (#eq? @p "rehypeRaw"))`,
      ]),
    ),
    // rehype-sanitize after rehype-raw cleans what rehype-raw let in.
    check: (c) => c.p === undefined || !/rehypeSanitize/.test(c.finding?.text ?? ''),
  },
  {
    // Semgrep's express-check-directory-listing: serve-index lists every file of the directory it serves.
    id: 'security/directory-listing',
    needles: ['serveIndex', 'serve-index', 'DirectoryBrowser'],
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-548',
    message:
      '`{finding}` lists the files of the served directory, showing backups, configuration and other files nobody links to; serve the files without an index.',
    // ASP.NET Core's directory browsing middleware (Semgrep's open-directory-listing).
    languages: {
      ...forJs(`((call_expression function: (identifier) @fn) @finding (#eq? @fn "serveIndex"))
                      ((call_expression function: (call_expression function: (identifier) @req arguments: (arguments (string (string_fragment) @m)))) @finding
                        (#eq? @req "require") (#eq? @m "serve-index"))`),
      csharp: `((invocation_expression function: (member_access_expression name: (_) @m)) @finding (#match? @m "^(UseDirectoryBrowser|AddDirectoryBrowser)$"))`,
    },
  },
  {
    // Angular's DomSanitizer bypass (Semgrep angular-domsanitizer): the value is inserted as trusted HTML, script,
    // style or URL. A literal the code fixes is the developer's own markup; a sanitiser's output (DOMPurify's,
    // sanitize-html's, Angular's own `sanitizer.sanitize(…)`) is what the message asks for.
    id: 'security/angular-sanitizer-bypass',
    needles: ['bypassSecurityTrust', 'SecurityContext.NONE'],
    category: 'security',
    severity: 'high',
    confidence: 'medium',
    cwe: 'CWE-79',
    message:
      '`{finding}` marks a value as trusted, so Angular inserts it without sanitising; let Angular sanitise it (bind it normally) or sanitise it yourself first (DOMPurify).',
    // `sanitizer.sanitize(SecurityContext.NONE, v)` returns v unsanitised, as a bypass does.
    languages:
      forJs(`((call_expression function: (member_expression property: (property_identifier) @m) arguments: (arguments . (_) @v)) @finding
                       (#match? @m "^bypassSecurityTrust(Html|Script|Style|Url|ResourceUrl)$"))
             ((call_expression function: (member_expression property: (property_identifier) @m) arguments: (arguments . (member_expression) @ctx . (_) @v)) @finding
                       (#eq? @m "sanitize") (#match? @ctx "^SecurityContext\\.NONE$"))`),
    check: (c) =>
      (!/^(string|template_string)$/.test(c.v?.type ?? '') || /\$\{/.test(c.v?.text ?? '')) &&
      !/^(DOMPurify\.sanitize|sanitizeHtml|[\w.]*\.sanitize)\s*\(/.test(c.v?.text ?? ''),
  },
];
