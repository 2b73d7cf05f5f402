import { javaFlow } from '../flow/java';
import type { TaintLanguage } from '../types';
import { INPUT_NAMES, JVM_BINDINGS, MCP_ANNOTATED, NATIVE_LIBRARY_LOAD } from './shared';

/** ESAPI's encoders, by the sink each one makes a value safe for. */
const esapi = (methods: string) =>
  new RegExp(`^ESAPI\\.encoder\\(\\)\\.(${methods})$|^Encoder\\.(${methods})$`);

/**
 * Java: servlet and Spring/JAX-RS sources; JDBC, Spring JdbcTemplate, JPA/Hibernate, Runtime/ProcessBuilder, JNDI
 * (LDAP), XPath, servlet writers, files, sessions. Callees are compared without their package (`java.io.File` is
 * `File`) and also as `DeclaredType.method` when the receiver is a typed local (`XPath xp; xp.evaluate(…)`).
 */
export const java: TaintLanguage = {
  assignments: [
    { type: 'variable_declarator', target: 'name', value: 'value' },
    { type: 'assignment_expression', target: 'left', value: 'right' },
  ],
  calls: ['method_invocation', 'object_creation_expression'],
  flow: javaFlow,
  qualifiedNames: true,
  sources: [/^System\.in\b/, /^args$/],
  parameterTypes: ['formal_parameter', 'spread_parameter'],
  parameterSources: [{ name: INPUT_NAMES }, { text: JVM_BINDINGS }, MCP_ANNOTATED],
  safeParameter:
    /\b(int|long|short|byte|boolean|double|float|Integer|Long|Short|Boolean|Double|Float|UUID|HttpServletRequest|HttpServletResponse|HttpSession|Model|ModelMap|BindingResult|Errors|Principal|Authentication|Pageable|Locale|RedirectAttributes|WebRequest)\s+\w+\s*$/,
  // Spring MVC binds a handler's simple parameters from the request even without @RequestParam.
  handler: { decorator: /@(Get|Post|Put|Delete|Patch|Request)Mapping\b/ },
  returnSink: [
    { kind: 'open-redirect', value: /^"redirect:"\+/ },
    // A String a @ResponseBody/@RestController handler returns, or a ResponseEntity's body, is written as the response
    // and served as text/html to a browser that asks for it: HTML markup built from input there is reflected XSS
    // (Semgrep's spring tainted-html-string, CodeQL java/xss). Only returned text that writes a tag is read as HTML;
    // a handler that declares JSON, XML or plain text (`produces = …`) is not.
    {
      kind: 'xss',
      value: /"[^"]*<\/?[a-zA-Z!]/,
      // (Annotations are read without whitespace: `@ResponseBodypublic`.)
      scope: /@(ResponseBody|RestController)|(^|\W|new)ResponseEntity\b/,
      scopeUnless: /produces\s*=[^)]*(JSON|json|XML|xml|TEXT_PLAIN|text\/plain)/,
    },
  ],
  sourceCalls: [
    /\.(getParameter|getParameterValues|getParameterMap|getParameterNames|getHeader|getHeaders|getHeaderNames|getQueryString|getCookies|getInputStream|getReader|getPathInfo|readLine)$/,
    /^System\.getenv$/,
  ],
  localInput: {
    sourceCalls: [
      /^(System\.getProperty|Properties\.getProperty|Scanner\.next\w*|Console\.readLine|Console\.readPassword)$/,
      /^(ResultSet|RowSet|CachedRowSet)\.(getString|getNString|getObject|getInt|getLong|getBytes|getCharacterStream)$/,
      /^(DataInputStream|ObjectInputStream|RandomAccessFile)\.(readUTF|readLine)$/,
      /^Files\.(readAllLines|readString|readAllBytes|lines)$|^IOUtils\.toString$/,
      /^(URLConnection|HttpURLConnection|HttpsURLConnection|Socket)\.getInputStream$/,
    ],
    // `reader.read(buffer)`: the buffer holds what the file or socket sent.
    sourceArguments: [
      {
        callee:
          /^(Reader|BufferedReader|InputStreamReader|FileReader|InputStream|FileInputStream|DataInputStream|BufferedInputStream)\.(read|readFully)$/,
        into: 0,
      },
    ],
  },
  sanitizers: [
    /^(Integer\.parseInt|Long\.parseLong|Integer\.valueOf|Long\.valueOf|Double\.parseDouble|Boolean\.parseBoolean|UUID\.fromString)$/,
  ],
  kindSanitizers: [
    {
      callee: esapi(
        'encodeForHTML|encodeForHTMLAttribute|encodeForJavaScript|encodeForCSS|encodeForXML|encodeForXMLAttribute',
      ),
      kinds: ['xss'],
    },
    {
      callee:
        /^(StringEscapeUtils\.(escapeHtml\d?|escapeEcmaScript|escapeJavaScript)|Encode\.for(Html\w*|JavaScript\w*|CssString)|HtmlUtils\.htmlEscape\w*|HtmlEscapers\.htmlEscaper\(\)\.escape)$/,
      kinds: ['xss'],
    },
    // XML escaping turns both quotes into entities, so the value cannot end an XPath string literal either.
    {
      callee: /^(StringEscapeUtils\.escapeXml\d*|Encode\.forXml\w*)$/,
      kinds: ['xss', 'xpath-injection'],
    },
    { callee: esapi('encodeForSQL'), kinds: ['sql-injection'] },
    { callee: esapi('encodeForLDAP|encodeForDN'), kinds: ['ldap-injection'] },
    { callee: esapi('encodeForXPath'), kinds: ['xpath-injection'] },
    { callee: esapi('encodeForOS'), kinds: ['command-injection'] },
    { callee: /^(StringEscapeUtils\.escapeJava|Encode\.forJava)$/, kinds: ['log-injection'] },
    { callee: /^FilenameUtils\.getName$|\.getFileName$/, kinds: ['path-traversal'] },
    {
      callee: /^(URLEncoder\.encode|ESAPI\.encoder\(\)\.encodeForURL)$/,
      kinds: ['xss', 'path-traversal', 'ldap-injection', 'header-injection'],
    },
  ],
  sinks: [
    {
      kind: 'sql-injection',
      callee:
        /\.(executeQuery|executeUpdate|executeLargeUpdate|execute|addBatch|prepareStatement|prepareCall|createQuery|createNativeQuery|createSQLQuery|queryForObject|queryForList|queryForMap|queryForRowSet|queryForLong|queryForInt)$/,
      arg: 0,
      // SQL is text; an object built in place (`client.execute(new HttpGet(url))`) is another API's request.
      argTypes: /^(?!object_creation_expression$)/,
    },
    { kind: 'sql-injection', callee: /\.batchUpdate$/, arg: 'any' },
    { kind: 'sql-injection', callee: /([Tt]emplate|JdbcTemplate)\.(query|update|execute)$/, arg: 0 },
    // JDO `pm.newQuery(text)`, Hibernate Criteria `Restrictions.sqlRestriction(text)`, Vert.x SQL clients'
    // `client.query(text)` / `preparedQuery(text)` (Semgrep's jdo-sqli, hibernate-sqli, vertx-sqli).
    {
      kind: 'sql-injection',
      callee:
        /\.newQuery$|^Restrictions\.sqlRestriction$|(client|Client|pool|Pool|conn|connection|Connection)\.(query|preparedQuery)$/,
      arg: 0,
      argTypes: /^(?!object_creation_expression$|class_literal$)/,
    },
    {
      kind: 'command-injection',
      callee: /\.exec$|^newProcessBuilder$|^ProcessBuilder\.command$/,
      arg: 'any',
    },
    { kind: 'code-injection', callee: /(engine|Engine|scriptEngine)\.eval$/, arg: 0 },
    // A native library chosen by input runs its code when loaded (CWE-114; Semgrep's formatted-runtime-call rules).
    { kind: 'code-injection', callee: NATIVE_LIBRARY_LOAD, arg: 0 },
    // Expression languages run what they parse (FindSecBugs SPEL_INJECTION, OGNL_INJECTION, EL_INJECTION,
    // GROOVY_SHELL; CodeQL's SpEL, MVEL, JEXL and Groovy injection queries).
    { kind: 'code-injection', callee: /\.parse(Expression|Raw)$/, arg: 0 },
    {
      kind: 'code-injection',
      callee:
        /^(Ognl|OgnlUtil)\.(getValue|setValue|parseExpression|compile|compileExpression)$|^MVEL\.(eval|compileExpression|executeExpression)$|^(GroovyShell|newGroovyShell\(\))\.(evaluate|parse|run)$|^(JexlEngine|jexl)\.(createExpression|createScript)$|^ELProcessor\.eval$/,
      arg: 0,
    },
    // Struts' OGNL helpers evaluate the name they are given (FindSecBugs OGNL_INJECTION's API list): an expression
    // first, or a property name after the target class.
    {
      kind: 'code-injection',
      callee:
        /^((Ognl)?ReflectionProvider|OgnlUtil)\.(getValue|setValue)$|^(OgnlTextParser|TextParser)\.evaluate$|^TextParseUtil\.translateVariables(Collection)?$/,
      arg: 0,
    },
    {
      kind: 'code-injection',
      callee: /^(Ognl)?ReflectionProvider\.(getGetMethod|getSetMethod|getField|setProperty)$/,
      arg: 1,
    },
    { kind: 'code-injection', callee: /\.create(Value|Method)Expression$/, arg: 1 },
    {
      kind: 'xss',
      callee:
        /getWriter\(\)\.(print|println|write|printf|format|append)$|^(out|writer|PrintWriter)\.(print|println|write|printf|format|append)$|getOutputStream\(\)\.(print|println|write)$/,
      arg: 'any',
      // A response the handler declares plain text or JSON is not rendered as HTML.
      unlessInFunction: /setContentType\(\s*"(text\/plain|application\/json|text\/csv)/,
    },
    // A stream with an ObjectInputFilter (JEP 290) accepts only the classes it allows.
    {
      kind: 'unsafe-deserialization',
      callee: /^newObjectInputStream$/,
      arg: 0,
      unlessInFile: /\.setObjectInputFilter\(|ObjectInputFilter\.Config\.setSerialFilter\(/,
    },
    { kind: 'unsafe-deserialization', callee: /^newXMLDecoder$/, arg: 0 },
    // XStream builds any class the XML names unless its security framework allows only some (FindSecBugs XSTREAM).
    {
      kind: 'unsafe-deserialization',
      callee: /^(XStream|\w*[xX][sS]tream\w*)\.fromXML$/,
      arg: 0,
      unlessInFile: /\.(allowTypes\w*|addPermission|setupDefaultSecurity)\(/,
    },
    // SnakeYAML's default constructor builds any class a `!!` tag names; SafeConstructor builds plain data only.
    {
      kind: 'unsafe-deserialization',
      callee: /^(Yaml|newYaml\(\))\.(load|loadAll|loadAs)$/,
      arg: 0,
      unlessInFile: /\bnew\s+SafeConstructor\b/,
    },
    {
      kind: 'path-traversal',
      callee:
        /^new(File|FileInputStream|FileOutputStream|FileReader|FileWriter|RandomAccessFile)$|^(Paths\.get|Path\.of|Files\.(readAllBytes|readAllLines|readString|lines|newInputStream|newOutputStream|newBufferedReader|newBufferedWriter|write|writeString|copy|move|delete|deleteIfExists|createFile))$/,
      arg: 'any',
    },
    // JNDI `search(name, filter, [filterArgs,] controls)`: the name and the filter are LDAP text; filterArgs fill
    // the filter's `{0}` placeholders escaped (RFC 4515), as CodeQL's java/ldap-injection models it.
    ...[0, 1].map((arg) => ({
      kind: 'ldap-injection' as const,
      callee:
        /^(DirContext|InitialDirContext|LdapContext|InitialLdapContext|LdapTemplate|DirContextOperations)\.search$/,
      arg,
    })),
    // The context is often a field or an injected bean of unknown type: a `search` whose function builds
    // SearchControls or an LDAP filter literal.
    ...[0, 1].map((arg) => ({
      kind: 'ldap-injection' as const,
      callee: /^(\w*[Cc]tx|\w*[Cc]ontext|\w*[Ll]dap\w*|\w*[Dd]irectory)\.search$/,
      arg,
      whenInFunction: /\bSearchControls\b|"\((&|\||!)?\(?[\w-]+[~<>]?=/,
    })),
    {
      kind: 'xpath-injection',
      callee: /^XPath\.(evaluate|compile)$|\.newXPath\(\)\.(evaluate|compile)$/,
      arg: 0,
    },
    {
      kind: 'trust-boundary',
      callee: /getSession\(\)\.(setAttribute|putValue)$|^HttpSession\.(setAttribute|putValue)$/,
      arg: 'any',
    },
    // …and a WebClient whose base URL is the input (`WebClient.create(url)`, `WebClient.builder().baseUrl(url)`).
    {
      kind: 'ssrf',
      callee:
        /^newURL$|^URI\.create$|\.getForObject$|\.getForEntity$|^WebClient\.(create|builder\(\)\.baseUrl)$/,
      arg: 0,
    },
    // RestTemplate's other verbs, Apache HttpClient requests, OkHttp's and WebClient's URL setters.
    {
      kind: 'ssrf',
      callee:
        /([Tt]emplate|RestTemplate)\.(exchange|postForObject|postForEntity|postForLocation|put|delete|headForHeaders)$|^new(HttpGet|HttpPost|HttpPut|HttpDelete|HttpHead|HttpPatch)$|^Request\.Builder\(\)\.url$|^\w*[wW]ebClient\w*\.(get|post|put|patch|delete)\(\)\.uri$/,
      arg: 0,
      // WebClient built with a base URL: a path after it stays on that host.
      unless: /\.uri\(\s*"\//,
    },
    // MongoDB: a filter parsed from text, or `$where` JavaScript, built from input.
    {
      kind: 'nosql-injection',
      callee: /^(BasicDBObject|Document|BsonDocument)\.parse$|^Filters\.where$/,
      arg: 0,
    },
    { kind: 'nosql-injection', callee: /^new(BasicDBObject|Document)$/, arg: 1, when: /["']\$where["']/ },
    { kind: 'open-redirect', callee: /\.sendRedirect$/, arg: 0 },
    // A Location header set by hand (servlet `setHeader("Location", …)`, Spring `ResponseEntity…header(HttpHeaders.LOCATION, …)`,
    // `HttpHeaders.setLocation(URI)`, `ResponseEntity.status(FOUND).location(URI)`): Semgrep's nonconstant-location-header.
    {
      kind: 'open-redirect',
      callee: /\.(setHeader|addHeader|header|set|add)$/,
      arg: 1,
      when: /\.(setHeader|addHeader|header|set|add)\(\s*("Location"|HttpHeaders\.LOCATION)\s*,/,
    },
    { kind: 'open-redirect', callee: /\.(location|setLocation)$/, arg: 0 },
    { kind: 'xss', callee: /\.sendError$/, arg: 1 },
    { kind: 'header-injection', callee: /\.(addHeader|setHeader)$|^newCookie$/, arg: 1 },
    {
      kind: 'format-string',
      callee:
        /^(String\.format|MessageFormat\.format|String\.formatted)$|^System\.(out|err)\.(printf|format)$|^(Formatter|PrintStream)\.(format|printf)$/,
      arg: 0,
    },
    { kind: 'reflection', callee: /^Class\.forName$|\.loadClass$/, arg: 0 },
    // Templates compiled from input (FindSecBugs TEMPLATE_INJECTION_VELOCITY/FREEMARKER/PEBBLE, CodeQL
    // java/server-side-template-injection): Velocity's `evaluate` takes the template text fourth, FreeMarker's
    // `Template` its reader second.
    { kind: 'template-injection', callee: /^(Velocity|VelocityEngine|\w*[vV]elocity\w*)\.evaluate$/, arg: 3 },
    { kind: 'template-injection', callee: /^newTemplate$/, arg: 1, when: /Reader\(/ },
    { kind: 'template-injection', callee: /\.putTemplate$/, arg: 1 },
    {
      kind: 'template-injection',
      callee: /\.getLiteralTemplate$|^(Jinjava|\w*[jJ]injava)\.render(ForResult)?$/,
      arg: 0,
    },
    // Log injection (FindSecBugs CRLF_INJECTION_LOGS, CodeQL java/log-injection): Log4j and Logback write a line break
    // in a logged value as is, forging the entries after it, whether concatenated or passed as an argument.
    {
      kind: 'log-injection',
      callee: /^(\w*[lL]og(ger)?|LOG(GER)?)\.(trace|debug|info|warn|warning|error|fatal|severe)$/,
      arg: 'any',
    },
    { kind: 'config-setting', callee: /\.setCatalog$/, arg: 0 },
    { kind: 'config-setting', callee: /^System\.setProperty$/, arg: 'any' },
    // A child process's environment from input (Semgrep's tainted-env-from-http-request: `LD_PRELOAD`, `PATH`…).
    { kind: 'config-setting', callee: /\.environment\(\)\.put$/, arg: 'any' },
  ],
  valueChecks: [
    {
      rule: 'security/hardcoded-password',
      cwe: 'CWE-259',
      severity: 'high',
      callee: /^(DriverManager\.getConnection)$/,
      arg: 2,
      value: /^.+$/,
      message:
        'The database password is the literal `{value}` in the code, readable by anyone with the source or the binary; read it from a secret store or the environment.',
    },
    {
      rule: 'security/hardcoded-password',
      cwe: 'CWE-259',
      severity: 'high',
      callee: /^new(PasswordAuthentication|KerberosKey|KerberosPrincipal)$/,
      arg: 1,
      value: /^.+$/,
      message:
        'The password is the literal `{value}` in the code, readable by anyone with the source or the binary; read it from a secret store or the environment.',
    },
    {
      rule: 'security/hardcoded-key',
      cwe: 'CWE-321',
      severity: 'high',
      callee: /^newSecretKeySpec$/,
      arg: 0,
      value: /^.+$/,
      message:
        'The encryption key is the literal `{value}` in the code: anyone with the source or the binary can decrypt; load it from a key store.',
    },
    {
      rule: 'security/fixed-seed',
      cwe: 'CWE-336',
      severity: 'medium',
      callee: /^SecureRandom\.setSeed$|^newSecureRandom$/,
      arg: 0,
      value: /^.+$/,
      message:
        'SecureRandom seeded with the constant `{value}` produces the same sequence on every run; let it seed itself.',
    },
    {
      rule: 'security/weak-cipher',
      cwe: 'CWE-327',
      severity: 'high',
      callee: /^Cipher\.getInstance$/,
      arg: 0,
      value:
        /^(DES|DESede|TripleDES|3DES|RC2|RC4|ARCFOUR|Blowfish)\b|\/ECB\b(?!\/OAEP)|^AES$|^RSA\/[^/]*\/NoPadding$/i,
      message:
        '`{value}` is a broken or weak cipher (DES, 3DES, RC2, RC4, Blowfish), mode (ECB, the default for a bare "AES") or padding (textbook RSA without OAEP); use AES/GCM/NoPadding, RSA/ECB/OAEPWithSHA-256AndMGF1Padding.',
    },
    {
      rule: 'security/weak-hash',
      cwe: 'CWE-328',
      severity: 'medium',
      callee: /^MessageDigest\.getInstance$/,
      arg: 0,
      value: /^(MD2|MD4|MD5|SHA|SHA-?1)$/i,
      message:
        '`{value}` is a broken hash; use SHA-256 or stronger (and a password hash such as bcrypt for passwords).',
    },
  ],
};
