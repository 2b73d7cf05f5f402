import { scalaFlow } from '../flow/scala';
import type { TaintLanguage } from '../types';
import { JVM_BINDINGS, JVM_REQUEST_CALLS, mainArgs, NATIVE_LIBRARY_LOAD, namedInput } from './shared';

/** Scala: Play, JDBC, scala.sys.process. */
export const scala: TaintLanguage = {
  assignments: [
    { type: 'val_definition', target: 'pattern', value: 'value' },
    { type: 'var_definition', target: 'pattern', value: 'value' },
    { type: 'assignment_expression', target: 'left', value: 'right' },
  ],
  calls: ['call_expression', 'instance_expression'],
  flow: scalaFlow,
  // scala.sys.process: `cmd.!`, `cmd.!!`, `cmd.lazyLines`, `cmd.lineStream` (and their `_!` forms) run the command;
  // `lines` is not among them: on a String it is StringOps.lines, which splits text.
  memberSinks: [
    {
      type: 'field_expression',
      member: 'field',
      receiver: 'value',
      name: /^(!!?|lazyLines(_!)?|lineStream(_!)?)$/,
      kind: 'command-injection',
      // `Seq("grep", q).!!` runs grep with q as one argument; only a shell (`Seq("sh", "-c", …)`) reads a command line.
      unless: /^(Seq|List|Vector|Array)\(\s*"(?!(sh|bash|zsh|dash|cmd|cmd\.exe|powershell)")[^"]*"\s*,/,
    },
    { type: 'field_expression', member: 'field', receiver: 'value', name: /^r$/, kind: 'regex-injection' },
  ],
  cleanMembers: [
    {
      types: ['field_expression'],
      pattern: /\.(toInt|toLong|toDouble|toBoolean|toIntOption|toLongOption)$/,
    },
  ],
  sources: [/^request\.(body|queryString|headers|cookies|uri|path|rawQueryString)\b/, /^sys\.env\b/],
  sourceCalls: [
    JVM_REQUEST_CALLS,
    /^request\.(getQueryString|body\.as\w+)$/,
    /^((scala\.io\.)?StdIn\.readLine|sys\.env\.get|System\.getenv)$/,
  ],
  localInput: {
    sources: [/^args\b/],
    sourceCalls: [
      /^(scala\.io\.)?Source\.(fromFile|fromURL|fromInputStream|stdin)$/,
      /^(System\.getProperty|Properties\.getProperty|ResultSet\.get(String|NString|Object))$/,
      /\.get(String|NString)$/,
      /^(Files\.(readAllLines|readString|readAllBytes)|StdIn\.\w+)$/,
    ],
  },
  sanitizers: [
    /^(Integer\.parseInt|Long\.parseLong|UUID\.fromString|StringEscapeUtils\.escape\w+|HtmlFormat\.escape|URLEncoder\.encode|FilenameUtils\.getName)$/,
  ],
  kindSanitizers: [
    { callee: /\.encodeForLDAP$|\.encodeForDN$|^(LdapEncoder\.)?filterEncode$/, kinds: ['ldap-injection'] },
    { callee: /\.encodeForXPath$/, kinds: ['xpath-injection'] },
  ],
  sinks: [
    { kind: 'header-injection', callee: /\.(addHeader|setHeader)$|^newCookie$/, arg: 1 },
    // Log forging (CodeQL java/log-injection): SLF4J, Log4j, java.util.logging and Android loggers.
    {
      kind: 'log-injection',
      callee:
        /^(\w+\.)?(log|logger|LOG|LOGGER|Log|Logger)\.(trace|debug|info|warn|warning|error|fatal|severe|d|i|w|e|v)$/,
      arg: 'any',
    },
    { kind: 'reflection', callee: /^Class\.forName$|\.loadClass$/, arg: 0 },
    { kind: 'config-setting', callee: /\.setCatalog$|^System\.setProperty$/, arg: 'any' },
    // JNDI (DirContext.search) and Spring LDAP's template, by the receiver's usual name: Kotlin/Scala declare no types here.
    {
      kind: 'ldap-injection',
      callee: /^(\w*(ctx|Ctx|context|Context)|\w*[lL]dap\w*)\.search$/,
      arg: 'any',
    },
    {
      kind: 'xpath-injection',
      callee: /\.newXPath\(\)\.(evaluate|compile)$|^\w*[xX][pP]ath\w*\.(evaluate|compile)$/,
      arg: 0,
    },
    {
      kind: 'sql-injection',
      callee:
        /\.(executeQuery|executeUpdate|execute|addBatch|prepareStatement|createQuery|createNativeQuery|overrideSql)$|^SQL$/,
      arg: 0,
    },
    {
      kind: 'command-injection',
      callee: /^((scala\.)?sys\.process\.)?Process$|\.exec$|^newProcessBuilder$/,
      arg: 'any',
    },
    // …and Scala.js's `js.eval`, the browser's eval.
    { kind: 'code-injection', callee: /(engine|Engine|toolbox)\.eval$|^js\.eval$/, arg: 0 },
    // A native library chosen by input runs its code when loaded (CWE-114; Semgrep's formatted-runtime-call rules).
    { kind: 'code-injection', callee: NATIVE_LIBRARY_LOAD, arg: 0 },
    // Templates compiled from input (FindSecBugs TEMPLATE_INJECTION_*, CodeQL server-side-template-injection):
    // Velocity's `evaluate` takes the template text fourth, FreeMarker's `Template` its reader second.
    { kind: 'template-injection', callee: /^(Velocity|VelocityEngine|\w*[vV]elocity\w*)\.evaluate$/, arg: 3 },
    { kind: 'template-injection', callee: /^newTemplate$/, arg: 1, when: /Reader\(/ },
    { kind: 'template-injection', callee: /\.putTemplate$/, arg: 1 },
    { kind: 'xss', callee: /^Html$/, arg: 0 },
    // A Play result declared HTML: `Ok(s"<b>$name</b>").as(HTML)`, `.as("text/html")`.
    { kind: 'xss', callee: /\.as$/, arg: 'receiver', when: /\.as\(\s*(HTML|ContentTypes\.HTML|"text\/html)/ },
    { kind: 'unsafe-deserialization', callee: /^newObjectInputStream$/, arg: 0 },
    {
      kind: 'path-traversal',
      callee:
        /^new(java\.io\.)?(File|FileInputStream|FileReader|FileWriter|PrintWriter)$|^((scala\.io\.)?Source\.fromFile|(java\.nio\.file\.)?(Paths\.get|Path\.of|Files\.(readAllBytes|readString|readAllLines|newInputStream|delete)))$/,
      arg: 0,
    },
    // …and scalaj-http's `Http(url)`, Dispatch's `url(u)`.
    { kind: 'ssrf', callee: /^newURL$|^((scala\.io\.)?Source\.fromURL|URI\.create|Http|url)$/, arg: 0 },
    // Play WS, sttp, requests-scala.
    {
      kind: 'ssrf',
      callee: /^(ws|wsClient)\.url$|^(basicRequest\.get|quickRequest\.get|requests\.(get|post))$/,
      arg: 0,
    },
    { kind: 'open-redirect', callee: /^Redirect$/, arg: 0 },
  ],
  parameterTypes: ['parameter'],
  parameterSources: [namedInput, mainArgs, { text: JVM_BINDINGS }],
  // Play: the routes file binds a controller action's parameters to the path and the query string.
  handler: {
    enclosingClass: {
      header: /\bextends\s+(AbstractController|BaseController|InjectedController|Controller)\b/,
      method: /^def\s/,
    },
    // An action built with Play's ActionBuilder (`Action`, `Action.async`, `Action(parse.json)`), in any class.
    body: /^Action(\.async)?\s*(\(|\{|$)/,
  },
  safeParameter: /:\s*(Int|Long|Short|Byte|Boolean|Double|Float|UUID)\s*(=.*)?$/,
};
