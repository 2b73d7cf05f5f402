import { swiftFlow } from '../flow/swift';
import type { TaintLanguage } from '../types';
import { namedInput } from './shared';

/** Swift: Vapor, Foundation, iOS. */
export const swift: TaintLanguage = {
  assignments: [
    { type: 'property_declaration', target: 'name', value: 'value' },
    { type: 'assignment', target: 'target', value: 'result' },
  ],
  calls: ['call_expression'],
  flow: swiftFlow,
  argumentWrappers: ['value_argument'],
  propertySinks: [{ target: /\.(arguments|launchPath)$/, kind: 'command-injection' }],
  sources: [
    /^(req|request)\.(query|parameters|body|headers|cookies|url)\b/,
    /^CommandLine\.arguments\b/,
    /^ProcessInfo\.processInfo\.(environment|arguments)\b/,
  ],
  // Vapor: `req.query["id"]` is a call_expression (a subscript) on `req.query`.
  sourceCalls: [
    /^(req|request)\.(query|query\.get|query\.decode|parameters\.get|content\.decode|body\.string|headers\.first)$/,
    /^(readLine|getenv)$/,
  ],
  localInput: {
    sourceCalls: [
      /^FileManager\.default\.contents$|^UserDefaults\.standard\.string$/,
      /\.(readDataToEndOfFile|availableData)$/,
    ],
  },
  sanitizers: [/^(Int|Int32|Int64|UInt|Double|Float|Bool|UUID)$/, /\.addingPercentEncoding$/],
  cleanMembers: [
    { types: ['navigation_expression'], pattern: /\.lastPathComponent$/ },
    // SQLKit: `\(bind: x)` is a bound parameter.
    { types: ['interpolated_expression'], pattern: /^bind:/ },
  ],
  sinks: [
    // Foundation's XMLNode on macOS, Kanna and Fuzi documents; OpenLDAP's C API.
    { kind: 'xpath-injection', callee: /\.(nodes|objects)$/, arg: 0, when: /forXPath:/ },
    { kind: 'xpath-injection', callee: /^\w*(doc|Doc|document|Document|html|xml)\w*\.xpath$/, arg: 0 },
    { kind: 'ldap-injection', callee: /^ldap_search(_ext)?(_s)?$/, arg: 3 },
    { kind: 'sql-injection', callee: /\.(raw|execute)$/, arg: 0 },
    { kind: 'sql-injection', callee: /^sqlite3_(exec|prepare|prepare_v2|prepare_v3)$/, arg: 1 },
    { kind: 'command-injection', callee: /^(system|popen)$/, arg: 0 },
    { kind: 'command-injection', callee: /^Process\.launchedProcess$/, arg: 'any' },
    // JSContext scripts, NSExpression formats, and JavaScript run in a web view's page (CodeQL swift/unsafe-js-eval).
    {
      kind: 'code-injection',
      callee: /\.evaluateScript$|^NSExpression$|\.(evaluateJavaScript|callAsyncJavaScript)$/,
      arg: 0,
    },
    { kind: 'xss', callee: /\.loadHTMLString$/, arg: 0 },
    // Stencil templates compiled from input.
    { kind: 'template-injection', callee: /^Template$/, arg: 0, when: /templateString:/ },
    { kind: 'template-injection', callee: /\.renderTemplate$/, arg: 0, when: /\(\s*string:/ },
    {
      kind: 'unsafe-deserialization',
      callee: /^NSKeyedUnarchiver\.(unarchiveObject|unarchiveTopLevelObjectWithData)$/,
      arg: 0,
    },
    {
      kind: 'path-traversal',
      callee:
        /^FileManager\.default\.(contents|removeItem|createFile|contentsOfDirectory|copyItem|moveItem)$/,
      arg: 0,
    },
    { kind: 'path-traversal', callee: /^(String|Data|NSString|NSData)$/, arg: 0, when: /contentsOf(File)?:/ },
    { kind: 'path-traversal', callee: /^(URL|FileHandle)$/, arg: 0, when: /fileURLWithPath:|AtPath:/ },
    // Vapor's file helpers: `req.fileio.streamFile(at: path)`, `collectFile(at:)`, `readFile(at:)`.
    { kind: 'path-traversal', callee: /\.fileio\.(streamFile|collectFile|readFile)$/, arg: 0 },
    // A Vapor `Response` in a handler that sets an HTML content type: its body is rendered by the browser.
    { kind: 'xss', callee: /^Response$/, arg: 'any', whenInFunction: /text\/html|contentType: \.html\b/ },
    { kind: 'ssrf', callee: /^URL$/, arg: 0, when: /^URL\(\s*string:/ },
    { kind: 'open-redirect', callee: /^(req|request)\.redirect$/, arg: 0 },
    // Log forging: Vapor's and swift-log's loggers, NSLog.
    {
      kind: 'log-injection',
      callee: /^((req|request|app)\.)?logger\.(trace|debug|info|notice|warning|error|critical)$|^NSLog$/,
      arg: 'any',
    },
  ],
  parameterTypes: ['parameter'],
  // A URL opened by another app (deep links, universal links) is untrusted.
  parameterSources: [namedInput, { text: /^open\s+url\s*:|openURLContexts|continue\s+userActivity\s*:/ }],
  safeParameter: /:\s*(Int|Int32|Int64|UInt|Double|Float|Bool|UUID)\??\s*(=.*)?$/,
};
