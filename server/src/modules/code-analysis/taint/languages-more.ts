import type { ParameterSource, TaintLanguage } from './types';

/** Sources, sinks and sanitizers of Kotlin, Swift, Scala, Rust and Bash (see languages.ts). */

/** Parameter names that say the value is request or user input, in every language. */
export const INPUT_NAMES =
  /^\$?(params|query|queryParams|query_params|body|requestBody|request_body|form|formData|form_data|payload|input|userInput|user_input)$/;

const namedInput: ParameterSource = { name: INPUT_NAMES };
const mainArgs: ParameterSource = { name: /^(args|argv)$/, function: /^main$/ };

const JVM_REQUEST_CALLS =
  /\.(getParameter|getParameterValues|getHeader|getQueryString|getCookies|getInputStream|getReader)$/;
/** Spring, JAX-RS: annotations that bind a parameter to the request. */
const JVM_BINDINGS =
  /@(RequestParam|PathVariable|RequestBody|RequestHeader|CookieValue|QueryParam|PathParam|FormParam|HeaderParam|CookieParam)\b/;

export const kotlin: TaintLanguage = {
  // The Kotlin grammar has no field names: children are picked by type or position.
  assignments: [
    { type: 'property_declaration', target: 'type:variable_declaration', value: '*last' },
    { type: 'assignment', target: 'type:directly_assignable_expression', value: '*last' },
  ],
  calls: ['call_expression'],
  argumentWrappers: ['value_argument'],
  sources: [/^call\.(parameters|request\.(queryParameters|headers|cookies|uri))\b/, /^System\.in\b/],
  sourceCalls: [
    JVM_REQUEST_CALLS,
    /^call\.receive(Text|Parameters|Multipart|Stream|Channel)?(<.*>)?$/,
    /^(readLine|readln|readlnOrNull|System\.getenv)$/,
  ],
  sanitizers: [
    /\.(toInt|toLong|toDouble|toBoolean|toIntOrNull|toLongOrNull|toDoubleOrNull)$/,
    /^(Integer\.parseInt|Long\.parseLong|UUID\.fromString|StringEscapeUtils\.escape\w+|Encode\.for\w+|HtmlUtils\.htmlEscape|FilenameUtils\.getName|URLEncoder\.encode)$/,
    /\.escapeHTML$/,
  ],
  sinks: [
    {
      kind: 'sql-injection',
      callee:
        /\.(executeQuery|executeUpdate|execute|addBatch|prepareStatement|createQuery|createNativeQuery|rawQuery|execSQL)$/,
      arg: 0,
    },
    { kind: 'command-injection', callee: /\.exec$|^ProcessBuilder$/, arg: 'any' },
    { kind: 'code-injection', callee: /(engine|Engine)\.eval$/, arg: 0 },
    {
      kind: 'xss',
      callee: /getWriter\(\)\.(print|println|write)$|^(out|writer)\.(print|println|write)$/,
      arg: 0,
    },
    { kind: 'xss', callee: /^call\.respondText$/, arg: 0, when: /ContentType\.Text\.Html/ },
    { kind: 'unsafe-deserialization', callee: /^(ObjectInputStream|XMLDecoder)$/, arg: 0 },
    {
      kind: 'path-traversal',
      callee:
        /^(File|FileInputStream|FileOutputStream|FileReader|FileWriter)$|^(Paths\.get|Path\.of|Files\.(readAllBytes|readString|readAllLines|newInputStream|delete))$/,
      arg: 0,
    },
    { kind: 'ssrf', callee: /^URL$|^URI\.create$|\.getForObject$|\.getForEntity$/, arg: 0 },
    { kind: 'open-redirect', callee: /\.sendRedirect$|^call\.respondRedirect$/, arg: 0 },
  ],
  parameterTypes: ['parameter'],
  parameterSources: [namedInput, mainArgs, { text: JVM_BINDINGS }],
  safeParameter: /:\s*(Int|Long|Short|Byte|Boolean|Double|Float|UUID)\??\s*(=.*)?$/,
};

export const swift: TaintLanguage = {
  assignments: [
    { type: 'property_declaration', target: 'name', value: 'value' },
    { type: 'assignment', target: 'target', value: 'result' },
  ],
  calls: ['call_expression'],
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
  sanitizers: [/^(Int|Int32|Int64|UInt|Double|Float|Bool|UUID)$/, /\.addingPercentEncoding$/],
  cleanMembers: { types: ['navigation_expression'], pattern: /\.lastPathComponent$/ },
  sinks: [
    { kind: 'sql-injection', callee: /\.(raw|execute)$/, arg: 0 },
    { kind: 'sql-injection', callee: /^sqlite3_(exec|prepare|prepare_v2|prepare_v3)$/, arg: 1 },
    { kind: 'command-injection', callee: /^(system|popen)$/, arg: 0 },
    { kind: 'command-injection', callee: /^Process\.launchedProcess$/, arg: 'any' },
    { kind: 'code-injection', callee: /\.evaluateScript$|^NSExpression$/, arg: 0 },
    { kind: 'xss', callee: /\.loadHTMLString$/, arg: 0 },
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
    { kind: 'ssrf', callee: /^URL$/, arg: 0, when: /^URL\(\s*string:/ },
    { kind: 'open-redirect', callee: /^(req|request)\.redirect$/, arg: 0 },
  ],
  parameterTypes: ['parameter'],
  parameterSources: [namedInput],
  safeParameter: /:\s*(Int|Int32|Int64|UInt|Double|Float|Bool|UUID)\??\s*(=.*)?$/,
};

export const scala: TaintLanguage = {
  assignments: [
    { type: 'val_definition', target: 'pattern', value: 'value' },
    { type: 'var_definition', target: 'pattern', value: 'value' },
    { type: 'assignment_expression', target: 'left', value: 'right' },
  ],
  calls: ['call_expression', 'instance_expression'],
  // scala.sys.process: `cmd.!` and `cmd.!!` run the command.
  memberSinks: [
    {
      type: 'field_expression',
      member: 'field',
      receiver: 'value',
      name: /^!!?$/,
      kind: 'command-injection',
    },
  ],
  cleanMembers: {
    types: ['field_expression'],
    pattern: /\.(toInt|toLong|toDouble|toBoolean|toIntOption|toLongOption)$/,
  },
  sources: [/^request\.(body|queryString|headers|cookies|uri|path|rawQueryString)\b/, /^sys\.env\b/],
  sourceCalls: [
    JVM_REQUEST_CALLS,
    /^request\.(getQueryString|body\.as\w+)$/,
    /^((scala\.io\.)?StdIn\.readLine|sys\.env\.get|System\.getenv)$/,
  ],
  sanitizers: [
    /^(Integer\.parseInt|Long\.parseLong|UUID\.fromString|StringEscapeUtils\.escape\w+|HtmlFormat\.escape|URLEncoder\.encode|FilenameUtils\.getName)$/,
  ],
  sinks: [
    {
      kind: 'sql-injection',
      callee:
        /\.(executeQuery|executeUpdate|execute|addBatch|prepareStatement|createQuery|createNativeQuery)$|^SQL$/,
      arg: 0,
    },
    {
      kind: 'command-injection',
      callee: /^((scala\.)?sys\.process\.)?Process$|\.exec$|^newProcessBuilder$/,
      arg: 'any',
    },
    { kind: 'code-injection', callee: /(engine|Engine|toolbox)\.eval$/, arg: 0 },
    { kind: 'xss', callee: /^Html$/, arg: 0 },
    { kind: 'unsafe-deserialization', callee: /^newObjectInputStream$/, arg: 0 },
    {
      kind: 'path-traversal',
      callee:
        /^new(File|FileInputStream|FileReader|FileWriter|PrintWriter)$|^((scala\.io\.)?Source\.fromFile|Paths\.get|Path\.of|Files\.(readAllBytes|readString|readAllLines|newInputStream|delete))$/,
      arg: 0,
    },
    { kind: 'ssrf', callee: /^newURL$|^((scala\.io\.)?Source\.fromURL|URI\.create)$/, arg: 0 },
    { kind: 'open-redirect', callee: /^Redirect$/, arg: 0 },
  ],
  parameterTypes: ['parameter'],
  parameterSources: [namedInput, mainArgs, { text: JVM_BINDINGS }],
  safeParameter: /:\s*(Int|Long|Short|Byte|Boolean|Double|Float|UUID)\s*(=.*)?$/,
};

export const rust: TaintLanguage = {
  assignments: [
    { type: 'let_declaration', target: 'pattern', value: 'value' },
    { type: 'assignment_expression', target: 'left', value: 'right' },
    { type: 'compound_assignment_expr', target: 'left', value: 'right', keeps: true },
  ],
  calls: ['call_expression'],
  sources: [],
  sourceCalls: [
    /^(std::)?env::(args|args_os|var|var_os|vars)$/,
    /^(req|request)\.(query_string|match_info|headers|uri|path|cookie)$/,
  ],
  // `io::stdin().read_line(&mut buf)` fills `buf`.
  sourceArguments: [{ callee: /\.read_line$|\.read_to_string$/, into: 0 }],
  sanitizers: [
    /\.parse(::<[\w:]+>)?$/,
    /\.file_name$/,
    /^(html_escape::encode_\w+|encode_text|encode_safe|shell_escape::escape|shell_words::quote|urlencoding::encode)$/,
  ],
  sinks: [
    {
      kind: 'sql-injection',
      callee:
        /\.(execute|query|query_row|query_map|prepare|batch_execute|simple_query)$|^(sqlx::)?query(_as|_scalar)?$|^(diesel::)?sql_query$/,
      arg: 0,
    },
    { kind: 'command-injection', callee: /^(std::process::)?Command::new$/, arg: 0 },
    {
      kind: 'command-injection',
      callee: /\.args?$/,
      arg: 'any',
      when: /Command::new\(\s*"(sh|bash|zsh|dash|cmd|cmd\.exe|powershell)"\s*\)/,
    },
    { kind: 'xss', callee: /^(Html|axum::response::Html|RawHtml)$/, arg: 0 },
    { kind: 'xss', callee: /\.body$/, arg: 0, when: /text\/html/ },
    {
      kind: 'path-traversal',
      callee:
        /^((std::)?fs::(read|read_to_string|write|remove_file|remove_dir_all|copy|rename)|((std::)?fs::)?File::(open|create)|(actix_files::)?NamedFile::open)$/,
      arg: 0,
    },
    { kind: 'ssrf', callee: /^(reqwest::(blocking::)?get|ureq::get)$/, arg: 0 },
    { kind: 'open-redirect', callee: /^Redirect::(to|temporary|permanent|see_other)$/, arg: 0 },
  ],
  parameterTypes: ['parameter'],
  // actix-web and axum extractors: the handler's typed parameters are the request's query, path, body, form.
  parameterSources: [namedInput, { text: /:\s*(web::)?(Query|Path|Json|Form)\s*</ }],
  safeParameter:
    /<\s*(i8|i16|i32|i64|i128|isize|u8|u16|u32|u64|u128|usize|bool|f32|f64|Uuid)\s*>|:\s*&?(i8|i16|i32|i64|i128|isize|u8|u16|u32|u64|u128|usize|bool|f32|f64)\s*$/,
};

export const bash: TaintLanguage = {
  assignments: [{ type: 'variable_assignment', target: 'name', value: 'value' }],
  calls: ['command'],
  // Positional parameters (the script's or the function's arguments) and CGI request variables.
  sourceNodes: ['simple_expansion', 'expansion'],
  sources: [/^\$\{?([1-9]|@|\*|QUERY_STRING|REQUEST_URI|PATH_INFO|HTTP_[A-Z_]+)\b/],
  sourceCalls: [],
  sourceArguments: [{ callee: /^read$/, into: 'all' }],
  sanitizers: [],
  cleanMembers: { types: ['arithmetic_expansion'], pattern: /^/ },
  sinks: [
    { kind: 'command-injection', callee: /^eval$/, arg: 'any' },
    { kind: 'command-injection', callee: /^(sh|bash|zsh|dash|ksh)$/, arg: 'any', when: /\s-c\s/ },
    { kind: 'code-injection', callee: /^(source|\.)$/, arg: 0 },
    { kind: 'sql-injection', callee: /^(mysql|mariadb)$/, arg: 'any', when: /\s(-e|--execute)\b/ },
    { kind: 'sql-injection', callee: /^psql$/, arg: 'any', when: /\s(-c|--command)\b/ },
    { kind: 'sql-injection', callee: /^sqlite3$/, arg: 1 },
  ],
};
