import { INPUT_NAMES } from './languages-more';
import type { TaintLanguage } from './types';

/** Sources, sinks and sanitizers of Go, C# and C/C++ (see languages.ts). */
export const go: TaintLanguage = {
  assignments: [
    { type: 'short_var_declaration', target: 'left', value: 'right' },
    { type: 'assignment_statement', target: 'left', value: 'right' },
    { type: 'var_spec', target: 'name', value: 'value' },
  ],
  calls: ['call_expression'],
  sources: [/^os\.Args\b/, /^r\.(URL\.(Path|RawQuery)|Body|Form|PostForm)\b/],
  parameterTypes: ['parameter_declaration'],
  parameterSources: [{ name: INPUT_NAMES }],
  safeParameter: /\s(int|int32|int64|uint|uint32|uint64|bool|float64)\s*$/,
  sourceCalls: [/\.(FormValue|PostFormValue|Query\(\)\.Get|Get)$/, /^os\.Getenv$/, /\.URL\.Query$/],
  sanitizers: [
    /^(strconv\.(Atoi|ParseInt|ParseFloat|ParseBool)|html\.EscapeString|template\.HTMLEscapeString|filepath\.Base|path\.Base|url\.QueryEscape|url\.PathEscape)$/,
  ],
  sinks: [
    { kind: 'sql-injection', callee: /\.(Query|QueryRow|Exec)$/, arg: 0 },
    { kind: 'sql-injection', callee: /\.(QueryContext|ExecContext|QueryRowContext)$/, arg: 1 },
    { kind: 'command-injection', callee: /^exec\.Command(Context)?$/, arg: 'any' },
    { kind: 'xss', callee: /^template\.HTML$|^(w|rw|writer)\.Write$|^fmt\.Fprint(f|ln)?$/, arg: 'any' },
    {
      kind: 'path-traversal',
      callee: /^(os\.(Open|OpenFile|ReadFile|Remove|RemoveAll|Create)|ioutil\.ReadFile)$/,
      arg: 0,
    },
    { kind: 'path-traversal', callee: /^http\.ServeFile$/, arg: 2 },
    { kind: 'ssrf', callee: /^http\.(Get|Post|Head)$/, arg: 0 },
    { kind: 'ssrf', callee: /^http\.NewRequest(WithContext)?$/, arg: 1 },
    { kind: 'open-redirect', callee: /^http\.Redirect$/, arg: 2 },
  ],
};

export const csharp: TaintLanguage = {
  assignments: [
    { type: 'variable_declarator', target: 'name', value: '*last' },
    { type: 'assignment_expression', target: 'left', value: 'right' },
  ],
  calls: ['invocation_expression', 'object_creation_expression'],
  propertySinks: [{ target: /\.CommandText$/, kind: 'sql-injection' }],
  sources: [/^(HttpContext\.)?Request\.(Query|Form|QueryString|Headers|Cookies|Body|Path|RouteValues)\b/],
  parameterTypes: ['parameter'],
  parameterSources: [{ name: INPUT_NAMES }, { text: /\[From(Query|Route|Body|Form|Header)\b/ }],
  safeParameter: /\b(int|long|short|bool|double|float|decimal|Guid)\??\s+\w+\s*(=.*)?$/,
  sourceCalls: [/^Console\.ReadLine$/, /^Environment\.GetEnvironmentVariable$/],
  sanitizers: [
    /^(int|long|Int32|Int64|Guid|decimal)\.Parse$/,
    /^(HttpUtility|WebUtility)\.(HtmlEncode|UrlEncode)$|^HtmlEncoder\.Default\.Encode$/,
    /^Path\.GetFileName$/,
    /^Uri\.EscapeDataString$/,
  ],
  sinks: [
    {
      kind: 'sql-injection',
      callee:
        /^new(SqlCommand|SqliteCommand|NpgsqlCommand|MySqlCommand|OleDbCommand)$|\.(ExecuteSqlRaw|ExecuteSqlRawAsync|FromSqlRaw)$/,
      arg: 0,
    },
    { kind: 'command-injection', callee: /^Process\.Start$|^newProcessStartInfo$/, arg: 'any' },
    { kind: 'code-injection', callee: /^CSharpScript\.(EvaluateAsync|RunAsync)$/, arg: 0 },
    { kind: 'xss', callee: /^(Response\.Write|Html\.Raw|newHtmlString)$/, arg: 0 },
    {
      kind: 'path-traversal',
      callee:
        /^(File\.(ReadAllText|ReadAllBytes|ReadAllLines|OpenRead|Open|Delete|WriteAllText)|PhysicalFile|newFileStream)$/,
      arg: 0,
    },
    {
      kind: 'ssrf',
      callee: /\.(GetAsync|GetStringAsync|GetByteArrayAsync|PostAsync)$|^WebRequest\.Create$/,
      arg: 0,
    },
    { kind: 'open-redirect', callee: /^(Redirect|Response\.Redirect)$/, arg: 0 },
  ],
};

export const c: TaintLanguage = {
  assignments: [
    { type: 'init_declarator', target: 'declarator', value: 'value' },
    { type: 'assignment_expression', target: 'left', value: 'right' },
  ],
  calls: ['call_expression'],
  sources: [/^argv\b/],
  sourceCalls: [/^(getenv|secure_getenv|gets|readline)$/],
  sanitizers: [/^(atoi|atol|atoll|strtol|strtoul|strtoll|strtod)$/],
  propagators: [
    { callee: /^(sprintf|snprintf|strcpy|strncpy|strcat|strncat|memcpy|fgets|read|recv)$/, into: 0 },
  ],
  sinks: [
    {
      kind: 'command-injection',
      callee: /^(system|popen|execl|execlp|execle|execv|execvp|execvpe)$/,
      arg: 0,
    },
    { kind: 'sql-injection', callee: /^(mysql_query|mysql_real_query|sqlite3_exec|PQexec)$/, arg: 1 },
    { kind: 'path-traversal', callee: /^(fopen|open|freopen|remove|unlink)$/, arg: 0 },
  ],
};
