import type { Captures, RuleDefinition } from './types';

/**
 * Raw-HTML and URL sinks of the DOM, React and Vue given a value the code did not write (CWE-79), as
 * eslint-plugin-no-unsanitized (an error by default) and Semgrep's react-unsanitized-property,
 * react-dangerouslysetinnerhtml and react-href-var read them. Where the dataflow proves the value is input it reports
 * `security/xss` on the line (high), and these keep quiet; otherwise a value of unknown origin is reported at
 * medium: these sinks take markup or a `javascript:` URL by design, so anything but a literal or a sanitiser's
 * output needs a reviewer's look.
 */

/** A sanitiser or escaper's call (DOMPurify, sanitize-html, xss, an own `escapeHtml`), or a URL sanitiser. */
const CLEANED = /^[\w.]*(sanitize|purify|escape|xss|encode|clean|safe)\w*\s*[(`]/i;
/** An ALL_CAPS name: a module constant (`SEMGREP_REPO`, `config.HOME_URL`). */
const CONSTANT_NAME = /(^|\.)[A-Z][A-Z0-9_]*$/;

/** Text with its string literals and sanitised or numeric parts taken out: what remains is the unknown data. */
function unknownParts(text: string): string {
  return text
    .replace(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"/g, '')
    .replace(/[\w.]*(sanitize|purify|escape|xss|encode|clean)\w*\s*\([^()]*(\([^()]*\)[^()]*)*\)/gi, '')
    .replace(/\b(Number|parseInt|parseFloat)\s*\([^()]*\)|[\w$.]+\.(length|size|toFixed\([^()]*\))/g, '')
    .replace(/\b[A-Z][A-Z0-9_]*\b/g, '');
}

/** A value written into an HTML sink that is not fixed markup nor a sanitiser's output. */
export function unknownHtml(node: Captures[string]): boolean {
  if (!node) return false;
  const text = node.text.trim();
  switch (node.type) {
    case 'string':
    case 'number':
    case 'null':
    case 'undefined':
    case 'true':
    case 'false':
      return false;
    case 'identifier':
    case 'member_expression':
    case 'subscript_expression':
      return !CONSTANT_NAME.test(text);
    case 'call_expression':
      return !CLEANED.test(text);
    case 'template_string':
      return [...text.matchAll(/\$\{([^}]*)\}/g)].some((m) => /[A-Za-z_$]/.test(unknownParts(m[1] ?? '')));
    case 'binary_expression':
    case 'parenthesized_expression':
      return /[A-Za-z_$]/.test(unknownParts(text).replace(/[+\s()]/g, ''));
    case 'ternary_expression':
      return /[A-Za-z_$]/.test(unknownParts(text.replace(/^[^?]*\?/, '')).replace(/[+\s():]/g, ''));
    default:
      return false;
  }
}

/**
 * A URL given to a link that the code did not fix: a variable, a member, or text that starts with one
 * (`` `${url}` ``, `base + path`). Text headed by a literal (`/users/${id}`, `'#' + anchor`, `https://…`) fixes the
 * scheme; a call is taken for a route helper.
 */
export function unknownUrl(node: Captures[string]): boolean {
  if (!node) return false;
  const text = node.text.trim();
  switch (node.type) {
    case 'identifier':
    case 'member_expression':
    case 'subscript_expression':
      return !CONSTANT_NAME.test(text);
    case 'template_string':
      return /^`\$\{/.test(text) && !/^`\$\{[A-Z][A-Z0-9_]*\}/.test(text);
    case 'binary_expression': {
      const head = text.split('+')[0]?.trim() ?? '';
      return /^[a-z_$][\w$.]*$/i.test(head) && !CONSTANT_NAME.test(head);
    }
    default:
      return false;
  }
}

/** A `startsWith` check of the value in the block or the `if` guarding it (`if (url.startsWith('https:'))`). */
const schemeChecked = (value: string, block: string | undefined) =>
  block !== undefined &&
  new RegExp(`\\b${value.replace(/[.$]/g, '\\$&')}\\s*\\.\\s*startsWith\\(`).test(block);

/** The same queries for JavaScript, TypeScript and TSX, with the JSX ones added where the grammar has JSX. */
const withJsx = (common: string, jsx: string): Record<string, string> => ({
  javascript: `${common}\n${jsx}`,
  typescript: common,
  tsx: `${common}\n${jsx}`,
});

const HTML_SINKS = `((assignment_expression left: (member_expression property: (property_identifier) @p) right: (_) @v) @finding
    (#match? @p "^(innerHTML|outerHTML)$"))
  ((augmented_assignment_expression left: (member_expression property: (property_identifier) @p) right: (_) @v) @finding
    (#match? @p "^(innerHTML|outerHTML)$"))
  ((call_expression function: (member_expression property: (property_identifier) @m) arguments: (arguments . (_) . (_) @v)) @finding
    (#eq? @m "insertAdjacentHTML"))
  ((call_expression function: (member_expression object: (identifier) @o property: (property_identifier) @m) arguments: (arguments . (_) @v)) @finding
    (#eq? @o "document") (#match? @m "^(write|writeln)$"))
  ((pair key: [(property_identifier) (string)] @k value: (object (pair key: [(property_identifier) (string)] @h value: (_) @v))) @finding
    (#match? @k "^['\\"]?(dangerouslySetInnerHTML|domProps)['\\"]?$") (#match? @h "^['\\"]?(__html|innerHTML)['\\"]?$"))`;

/** JSX's `dangerouslySetInnerHTML={{ __html: x }}`, and a markup object from elsewhere (`={createMarkup()}`). */
const JSX_HTML_SINKS = `((jsx_attribute (property_identifier) @a (jsx_expression (object (pair key: (property_identifier) @h value: (_) @v)))) @finding
    (#eq? @a "dangerouslySetInnerHTML") (#eq? @h "__html"))
  ((jsx_attribute (property_identifier) @a (jsx_expression [(identifier) (call_expression) (member_expression)] @v)) @finding
    (#eq? @a "dangerouslySetInnerHTML"))`;

/** `React.createElement('a', { href: x })`, or a props object built in the block and handed to createElement. */
const PROPS_DECLARATOR = `(variable_declarator name: (identifier) @props value: (object (pair key: (property_identifier) @k value: (_) @v) @finding))`;
const PROPS_IN_BLOCK = `(statement_block [(lexical_declaration ${PROPS_DECLARATOR}) (variable_declaration ${PROPS_DECLARATOR})]) @block`;
const CREATE_ELEMENT_URLS = `((call_expression function: (_) @fn arguments: (arguments . (_) . (object (pair key: (property_identifier) @k value: (_) @v) @finding)))
    (#match? @fn "(^|\\\\.)createElement$") (#match? @k "^(href|formAction)$"))
  ([(function_declaration body: ${PROPS_IN_BLOCK}) (function_expression body: ${PROPS_IN_BLOCK})
    (arrow_function body: ${PROPS_IN_BLOCK}) (method_definition body: ${PROPS_IN_BLOCK})]
    (#match? @k "^(href|formAction)$") (#match? @block "createElement\\\\("))
  ((if_statement condition: (_) @cond consequence: ${PROPS_IN_BLOCK})
    (#match? @k "^(href|formAction)$") (#match? @block "createElement\\\\("))`;

/** `<a href={url}>`, react-router's `<Link to={url}>`. */
const JSX_URLS = `((jsx_attribute (property_identifier) @a (jsx_expression (_) @v)) @finding
    (#match? @a "^(href|xlinkHref|formAction)$"))
  ((jsx_opening_element name: (_) @el attribute: (jsx_attribute (property_identifier) @a (jsx_expression (_) @v)) @finding)
    (#match? @el "^(Link|NavLink)$") (#eq? @a "to"))
  ((jsx_self_closing_element name: (_) @el attribute: (jsx_attribute (property_identifier) @a (jsx_expression (_) @v)) @finding)
    (#match? @el "^(Link|NavLink)$") (#eq? @a "to"))`;

/**
 * Markup assembled from parts at a jQuery call that parses HTML (`$("<li>" + name + "</li>")`, `.html(…)`,
 * `.append([…].join(""))`): a literal holding a tag, and some part the code does not fix. An element or a selector
 * handed over (`.append(node)`, `$(sel)`) builds nothing and is not reported (Semgrep's raw-html-concat/-join,
 * jquery-insecure-method).
 */
function builtMarkup(node: Captures[string]): boolean {
  if (!node || !/['"`][^'"`]*<[a-zA-Z!/]/.test(node.text)) return false;
  if (node.type === 'call_expression') {
    const join = /^\[([\s\S]*)\]\s*\.\s*join\s*\(/.exec(node.text.trim());
    return join !== null && /[A-Za-z_$]/.test(unknownParts(join[1] ?? '').replace(/[,\s]/g, ''));
  }
  return (
    /^(binary_expression|template_string|parenthesized_expression)$/.test(node.type) && unknownHtml(node)
  );
}

const JQUERY_HTML = `((call_expression function: (identifier) @fn arguments: (arguments . (_) @v)) @finding (#match? @fn "^([$]|jQuery)$"))
  ((call_expression function: (member_expression property: (property_identifier) @m) arguments: (arguments . (_) @v)) @finding
    (#match? @m "^(html|append|prepend|after|before|replaceWith|wrap|wrapAll|wrapInner|insertAfter|insertBefore|appendTo|prependTo)$"))`;

export const DOM_SINK_RULES: RuleDefinition[] = [
  {
    id: 'security/unsafe-html-sink',
    needles: [
      'innerHTML',
      'outerHTML',
      'insertAdjacentHTML',
      'dangerouslySetInnerHTML',
      'document.write',
      'domProps',
    ],
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-79',
    message:
      '`{finding}` writes a value the code does not fix as HTML, so any markup or script in it runs; set `textContent` (or render it as text), or sanitise it first (DOMPurify.sanitize).',
    languages: withJsx(HTML_SINKS, JSX_HTML_SINKS),
    check: (c) => unknownHtml(c.v),
    yieldsTo: 'security/xss',
  },
  {
    // A `javascript:` URL runs when the link is followed.
    id: 'security/unsafe-url-attribute',
    needles: ['href', 'to=', 'formAction'],
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-79',
    message:
      '`{finding}` puts a URL the code does not fix into a link, where `javascript:…` runs script when followed; build it from a fixed base (`/users/${id}`) or allow only http(s) URLs.',
    languages: withJsx(CREATE_ELEMENT_URLS, JSX_URLS),
    check: (c) => {
      if (!unknownUrl(c.v)) return false;
      if (c.block) {
        const props = c.props?.text ?? '';
        if (!new RegExp(`createElement\\([^)]*\\b${props}\\b`).test(c.block.text)) return false;
        return !schemeChecked(c.v?.text ?? '', `${c.cond?.text ?? ''} ${c.block.text}`);
      }
      return true;
    },
    yieldsTo: 'security/xss',
  },
  {
    // Reverse tabnabbing (eslint-plugin-react jsx-no-target-blank, Semgrep react-missing-noopener): a page opened
    // with `target="_blank"` and no `rel="noopener"`/`"noreferrer"` gets `window.opener` and can navigate this page
    // to a look-alike (browsers since 2021 imply noopener; older ones and webviews do not). A link to a path on this
    // site (`/docs`) opens this site's own page.
    id: 'security/target-blank-without-noopener',
    needles: ['_blank'],
    category: 'security',
    severity: 'low',
    confidence: 'medium',
    cwe: 'CWE-1022',
    message:
      '`{finding}` opens a new tab that can reach back through `window.opener` and send this page elsewhere; add `rel="noopener noreferrer"`.',
    languages: withJsx(
      `((call_expression function: (_) @fn arguments: (arguments . (_) . (object) @finding)) (#match? @fn "(^|\\\\.)createElement$"))`,
      `((jsx_opening_element attribute: (jsx_attribute (property_identifier) @t (string))) @finding (#eq? @t "target"))
       ((jsx_self_closing_element attribute: (jsx_attribute (property_identifier) @t (string))) @finding (#eq? @t "target"))`,
    ),
    check: (c) => {
      const text = c.finding?.text ?? '';
      if (!/\btarget\s*[:=]\s*\{?\s*['"]_blank['"]/.test(text)) return false;
      if (/\brel\s*[:=]\s*\{?\s*['"`][^'"`]*\bno(opener|referrer)\b/.test(text)) return false;
      // A rel the code computes may hold anything; a relative link stays on this site.
      if (/\brel\s*[:=]\s*\{?\s*[^'"`\s]/.test(text)) return false;
      return !/\b(href|to)\s*[:=]\s*\{?\s*['"`]\/(?!\/)/.test(text);
    },
  },
  {
    // Semgrep insufficient-postmessage-origin-validation, CodeQL js/missing-origin-check: a window's `message`
    // listener that never reads the event's `origin` acts on a message from any window (an ad frame, a page that
    // opened this one). Workers' and sockets' messages have no other window behind them and are not reported; a
    // named handler is read where the listener is added at the top level.
    id: 'security/postmessage-origin-unchecked',
    needles: ['message'],
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-345',
    message:
      '`{finding}` handles messages from any window without checking `event.origin`; return unless the origin is one you expect.',
    languages: withJsx(
      `((call_expression function: (member_expression object: (identifier) @w property: (property_identifier) @m)
          arguments: (arguments . (string (string_fragment) @ev) . [(function_expression) (arrow_function)] @h)) @finding
        (#eq? @w "window") (#eq? @m "addEventListener") (#eq? @ev "message"))
      ((assignment_expression left: (member_expression object: (identifier) @w property: (property_identifier) @m) right: [(function_expression) (arrow_function)] @h) @finding
        (#eq? @w "window") (#eq? @m "onmessage"))
      ((program (expression_statement (call_expression function: (member_expression object: (identifier) @w property: (property_identifier) @m)
          arguments: (arguments . (string (string_fragment) @ev) . (identifier) @name)) @finding)) @prog
        (#eq? @w "window") (#eq? @m "addEventListener") (#eq? @ev "message"))`,
      '',
    ),
    check: (c) => {
      if (c.h) return !/\.origin\b/.test(c.h.text);
      const name = c.name?.text ?? '';
      const prog = c.prog?.text ?? '';
      // The handler's definition, `function name(…) {…}` or `const name = (…) => {…}`, up to its closing line.
      const at = prog.search(
        new RegExp(
          `(function\\s+${name}\\s*\\(|\\b${name}\\s*=\\s*(async\\s*)?(function\\b|\\(|\\w+\\s*=>))`,
        ),
      );
      if (at === -1) return false;
      const end = prog.indexOf('\n}', at);
      return !/\.origin\b/.test(prog.slice(at, end === -1 ? undefined : end));
    },
  },
  {
    id: 'security/jquery-html-built',
    needles: [
      '$(',
      'jQuery(',
      '.html(',
      '.append(',
      '.prepend(',
      '.after(',
      '.before(',
      '.replaceWith(',
      '.wrap',
    ],
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-79',
    message:
      '`{finding}` has jQuery parse markup built from values the code does not fix, so markup or script in them runs; build the elements and set their text (`$("<li>").text(name)`), or sanitise the values first.',
    languages: { javascript: JQUERY_HTML, typescript: JQUERY_HTML, tsx: JQUERY_HTML },
    check: (c) => builtMarkup(c.v),
    yieldsTo: 'security/xss',
  },
];
