import { kotlinFlow } from '../flow/kotlin';
import type { TaintLanguage } from '../types';
import {
  JVM_BINDINGS,
  JVM_REQUEST_CALLS,
  MCP_ANNOTATED,
  mainArgs,
  NATIVE_LIBRARY_LOAD,
  namedInput,
} from './shared';

/** Kotlin: servlets, Spring, Ktor, Android. */
export const kotlin: TaintLanguage = {
  // The Kotlin grammar has no field names: children are picked by type or position.
  assignments: [
    { type: 'property_declaration', target: 'type:variable_declaration', value: '*last' },
    { type: 'assignment', target: 'type:directly_assignable_expression', value: '*last' },
  ],
  calls: ['call_expression'],
  flow: kotlinFlow,
  argumentWrappers: ['value_argument'],
  sources: [
    /^call\.(parameters|request\.(queryParameters|headers|cookies|uri))\b/,
    /^System\.in\b/,
    /^intent\.(data|dataString|extras)\b/,
  ],
  sourceCalls: [
    JVM_REQUEST_CALLS,
    /^call\.receive(Text|Parameters|Multipart|Stream|Channel)?(<.*>)?$/,
    /^(readLine|readln|readlnOrNull|System\.getenv)$/,
    // Android: an Intent's extras and data come from whichever app started the component.
    /^(intent|getIntent\(\))\.(get\w*Extra|getStringArrayListExtra|getData|getDataString|getExtras)$/,
  ],
  localInput: {
    sourceCalls: [
      /\.(readText|readLines|readBytes)$/,
      /^(System\.getProperty|Properties\.getProperty|ResultSet\.get(String|NString|Object))$/,
      /^(rs|resultSet)\.get(String|NString|Object)$/,
      /^(URLConnection|HttpURLConnection|Socket)\.getInputStream$/,
    ],
  },
  cleanMembers: [{ types: ['navigation_expression'], pattern: /^(java\.io\.)?File\(.*\)\.name$/ }],
  sanitizers: [
    /\.(toInt|toLong|toDouble|toBoolean|toIntOrNull|toLongOrNull|toDoubleOrNull)$/,
    /^(Integer\.parseInt|Long\.parseLong|UUID\.fromString|StringEscapeUtils\.escape\w+|Encode\.for\w+|HtmlUtils\.htmlEscape|FilenameUtils\.getName|URLEncoder\.encode|Uri\.encode|TextUtils\.htmlEncode)$/,
    /\.escapeHTML$/,
  ],
  kindSanitizers: [
    { callee: /\.encodeForLDAP$|\.encodeForDN$|^(LdapEncoder\.)?filterEncode$/, kinds: ['ldap-injection'] },
    { callee: /\.encodeForXPath$/, kinds: ['xpath-injection'] },
  ],
  sinks: [
    { kind: 'header-injection', callee: /\.(addHeader|setHeader)$|^Cookie$/, arg: 1 },
    // Log forging (CodeQL java/log-injection): SLF4J, Log4j, java.util.logging and Android loggers.
    {
      kind: 'log-injection',
      callee:
        /^(\w+\.)?(log|logger|LOG|LOGGER|Log|Logger)\.(trace|debug|info|warn|warning|error|fatal|severe|d|i|w|e|v)$/,
      arg: 'any',
    },
    { kind: 'format-string', callee: /^(String\.format|System\.out\.printf)$/, arg: 0 },
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
        /\.(executeQuery|executeUpdate|execute|addBatch|prepareStatement|createQuery|createNativeQuery|rawQuery|execSQL)$/,
      arg: 0,
    },
    // Spring's JdbcTemplate and NamedParameterJdbcTemplate.
    {
      kind: 'sql-injection',
      callee:
        /\.(queryForList|queryForObject|queryForMap|queryForRowSet|queryForStream|batchUpdate)$|[jJ]dbc\w*\.(query|update|execute)$/,
      arg: 0,
    },
    { kind: 'command-injection', callee: /\.exec$|^ProcessBuilder$/, arg: 'any' },
    { kind: 'code-injection', callee: /(engine|Engine)\.eval$/, arg: 0 },
    // A native library chosen by input runs its code when loaded (CWE-114; Semgrep's formatted-runtime-call rules).
    { kind: 'code-injection', callee: NATIVE_LIBRARY_LOAD, arg: 0 },
    // Templates compiled from input (FindSecBugs TEMPLATE_INJECTION_*, CodeQL server-side-template-injection):
    // Velocity's `evaluate` takes the template text fourth, FreeMarker's `Template` its reader second.
    { kind: 'template-injection', callee: /^(Velocity|VelocityEngine|\w*[vV]elocity\w*)\.evaluate$/, arg: 3 },
    { kind: 'template-injection', callee: /^Template$/, arg: 1, when: /Reader\(/ },
    { kind: 'template-injection', callee: /\.putTemplate$/, arg: 1 },
    {
      kind: 'xss',
      callee: /getWriter\(\)\.(print|println|write)$|^(out|writer)\.(print|println|write)$/,
      arg: 0,
    },
    { kind: 'xss', callee: /^call\.respondText$/, arg: 0, when: /ContentType\.Text\.Html/ },
    // A WebView told to load a page (or `javascript:` URL) the Intent names runs it with the app's bridges.
    { kind: 'xss', callee: /\.(loadUrl|loadData|loadDataWithBaseURL|evaluateJavascript)$/, arg: 0 },
    { kind: 'unsafe-deserialization', callee: /^(ObjectInputStream|XMLDecoder)$/, arg: 0 },
    {
      kind: 'path-traversal',
      callee:
        /^(File|FileInputStream|FileOutputStream|FileReader|FileWriter)$|^(Paths\.get|Path\.of|Files\.(readAllBytes|readString|readAllLines|newInputStream|delete))$/,
      arg: 0,
      // `File(input).name` only takes the file name of the path.
      unlessParent: /^(java\.io\.)?File\(.*\)\.name$/,
    },
    { kind: 'ssrf', callee: /^URL$|^URI\.create$|\.getForObject$|\.getForEntity$/, arg: 0 },
    {
      kind: 'nosql-injection',
      callee: /^(BasicDBObject|Document|BsonDocument)\.parse$|^Filters\.where$/,
      arg: 0,
    },
    { kind: 'open-redirect', callee: /\.sendRedirect$|^call\.respondRedirect$/, arg: 0 },
  ],
  parameterTypes: ['parameter'],
  parameterSources: [namedInput, mainArgs, { text: JVM_BINDINGS }, MCP_ANNOTATED],
  // Spring MVC in Kotlin, as in Java: a handler's simple parameters come from the request, and what a
  // @ResponseBody/@RestController handler returns is the response body (HTML markup built from input is XSS).
  handler: { decorator: /@(Get|Post|Put|Delete|Patch|Request)Mapping\b/ },
  returnSink: [
    { kind: 'open-redirect', value: /^"redirect:"\+|^"redirect:\$/ },
    {
      kind: 'xss',
      value: /"[^"]*<\/?[a-zA-Z!]/,
      scope: /@(ResponseBody|RestController)|(^|\W)ResponseEntity\b/,
      scopeUnless: /produces\s*=[^)]*(JSON|json|XML|xml|TEXT_PLAIN|text\/plain)/,
    },
  ],
  safeParameter: /:\s*(Int|Long|Short|Byte|Boolean|Double|Float|UUID)\??\s*(=.*)?$/,
};
