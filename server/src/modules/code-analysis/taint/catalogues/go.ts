import { goFlow } from '../flow/go';
import type { TaintLanguage } from '../types';
import { INPUT_NAMES } from './shared';

/** Go: net/http, database/sql, os/exec, Gin, Echo. */
export const go: TaintLanguage = {
  assignments: [
    { type: 'short_var_declaration', target: 'left', value: 'right' },
    { type: 'assignment_statement', target: 'left', value: 'right' },
    { type: 'var_spec', target: 'name', value: 'value' },
  ],
  calls: ['call_expression'],
  flow: goFlow,
  sources: [/^os\.Args\b/, /^r\.(URL\.(Path|RawQuery)|Body|Form|PostForm)\b/],
  parameterTypes: ['parameter_declaration'],
  // mcp-go: a tool's, a resource's or a prompt's request carries what the model asked for.
  parameterSources: [
    { name: INPUT_NAMES },
    { text: /\bmcp\.(CallToolRequest|ReadResourceRequest|GetPromptRequest)\b/ },
  ],
  safeParameter: /\s(int|int32|int64|uint|uint32|uint64|bool|float64)\s*$/,
  sourceCalls: [
    /\.(FormValue|PostFormValue|Query\(\)\.Get|Get)$/,
    /^os\.Getenv$/,
    /\.URL\.Query$/,
    /^(mux\.Vars|chi\.URLParam|r\.Cookie|r\.FormFile|r\.PathValue|r\.MultipartReader)$/,
    // Gin, Echo, Fiber: the handler's context reads the request.
    /^(c|ctx)\.(Query|DefaultQuery|GetQuery|QueryArray|QueryMap|Param|Params|PostForm|DefaultPostForm|GetPostForm|PostFormArray|GetHeader|Cookie|Cookies|QueryParam|QueryParams|FormParams|GetRawData|Body|BodyParser|ShouldBind\w*|Bind\w*|FormFile|MultipartForm|FormValue)$/,
  ],
  // A request body decoded into a struct, by Gin/Echo/Fiber binding or a JSON/XML decoder over the body.
  sourceArguments: [
    { callee: /^(c|ctx)\.(ShouldBind\w*|Bind\w*|BodyParser|MustBindWith)$/, into: 0 },
    {
      callee: /\.Decode$/,
      into: 0,
      when: /^(json|xml)\.NewDecoder\(\s*(r|req|request|c\.Request)\.Body\s*\)\.Decode\(/,
    },
  ],
  localInput: {
    sources: [/^os\.Stdin\b/],
    sourceCalls: [
      /^(os\.ReadFile|ioutil\.ReadFile|ioutil\.ReadAll|io\.ReadAll|os\.Open|flag\.(Arg|Args|String)|http\.(Get|Post))$/,
      /\.(ReadString|ReadLine|ReadBytes|Text)$/,
    ],
    // `rows.Scan(&name)`, `conn.Read(buf)`, `fmt.Scan(&x)` fill their arguments.
    sourceArguments: [
      { callee: /\.Scan$|^fmt\.(Scan|Scanln|Scanf|Fscan|Fscanln|Fscanf)$/, into: 'all' },
      { callee: /\.Read$|^io\.ReadFull$/, into: 0 },
    ],
  },
  sanitizers: [
    /^(strconv\.(Atoi|ParseInt|ParseFloat|ParseBool)|html\.EscapeString|template\.HTMLEscapeString|filepath\.Base|path\.Base|url\.QueryEscape|url\.PathEscape)$/,
  ],
  kindSanitizers: [
    { callee: /^ldap\.EscapeFilter$/, kinds: ['ldap-injection'] },
    // lib/pq's quoting of an identifier or a literal for the SQL text it is placed in.
    { callee: /^pq\.(QuoteIdentifier|QuoteLiteral)$/, kinds: ['sql-injection'] },
    // Quoting and JSON encoding escape line breaks; what serving returns is its error, not the address it was given
    // (`log.Fatal(http.ListenAndServe(addr, nil))`).
    { callee: /^(strconv\.Quote|json\.Marshal)$/, kinds: ['log-injection'] },
    { callee: /(^|\.)(ListenAndServe|ListenAndServeTLS|Serve|ServeTLS)$/, kinds: ['log-injection'] },
    { callee: /^mail\.(ParseAddress|ParseAddressList)$/, kinds: ['smtp-injection'] },
  ],
  sinks: [
    { kind: 'format-string', callee: /^(fmt\.(Printf|Sprintf|Errorf)|log\.(Printf|Fatalf|Panicf))$/, arg: 0 },
    { kind: 'format-string', callee: /^fmt\.Fprintf$/, arg: 1 },
    { kind: 'sql-injection', callee: /\.(Query|QueryRow|Exec)$/, arg: 0 },
    // GORM: raw SQL and string conditions (`db.Where("name = ?", n)` binds); go-pg and bun: the query builder's
    // SQL fragments (`.WhereOr(q)`, `.ColumnExpr(q)`, `.OrderExpr(q)`).
    {
      kind: 'sql-injection',
      callee:
        /\.(Raw|Where|Order|Having|Joins|Select|Group|WhereOr|WhereNot|ColumnExpr|TableExpr|ModelTableExpr|OrderExpr|GroupExpr|JoinOn|JoinOnOr)$/,
      arg: 0,
    },
    { kind: 'ldap-injection', callee: /^ldap\.NewSearchRequest$/, arg: 'any' },
    // antchfx xmlquery/htmlquery (`Find(doc, expr)`) and xpath (`Compile(expr)`).
    {
      kind: 'xpath-injection',
      callee: /^(xmlquery|htmlquery|jsonquery)\.(Find|FindOne|QueryAll|Query)$/,
      arg: 1,
    },
    { kind: 'xpath-injection', callee: /^xpath\.(Compile|MustCompile)$/, arg: 0 },
    { kind: 'sql-injection', callee: /\.(QueryContext|ExecContext|QueryRowContext)$/, arg: 1 },
    // sqlx: its own query methods, and `Select`/`Get` that take the destination first.
    { kind: 'sql-injection', callee: /\.(Queryx|QueryRowx|MustExec|NamedExec|NamedQuery|Preparex)$/, arg: 0 },
    { kind: 'sql-injection', callee: /\.(Select|Get)$/, arg: 1, when: /^[\w.]+\.(Select|Get)\(\s*&/ },
    { kind: 'sql-injection', callee: /\.(SelectContext|GetContext)$/, arg: 2 },
    {
      kind: 'sql-injection',
      callee: /\.(QueryxContext|QueryRowxContext|NamedExecContext|NamedQueryContext|MustExecContext)$/,
      arg: 1,
    },
    // mongo-go-driver: `$where` JavaScript built from input runs on the server.
    {
      kind: 'nosql-injection',
      callee:
        /\.(Find|FindOne|FindOneAndUpdate|FindOneAndDelete|FindOneAndReplace|UpdateOne|UpdateMany|DeleteOne|DeleteMany|CountDocuments)$/,
      arg: 1,
      when: /"\$where"/,
    },
    // The program, or any argument of a shell (`sh -c`); input given as an argument of a fixed program is its data.
    { kind: 'command-injection', callee: /^exec\.Command$/, arg: 0 },
    { kind: 'command-injection', callee: /^exec\.CommandContext$/, arg: 1 },
    {
      kind: 'command-injection',
      callee: /^exec\.Command(Context)?$/,
      arg: 'any',
      when: /^exec\.Command(Context)?\(\s*([\w.()]+\s*,\s*)?"(\/(usr\/)?bin\/)?(sh|bash|zsh|dash|ksh|cmd|cmd\.exe|powershell|pwsh)"/,
    },
    // gosec G203's html/template conversions; a handler that sets a non-HTML content type writes no HTML.
    {
      kind: 'xss',
      callee:
        /^template\.(HTML|HTMLAttr|JS|JSStr|CSS|URL|Srcset)$|^(w|rw|writer)\.Write$|^fmt\.Fprint(f|ln)?$/,
      arg: 'any',
      unlessInFunction:
        /"Content-Type",\s*"(text\/plain|application\/json|text\/csv|application\/octet-stream)/,
    },
    {
      kind: 'path-traversal',
      callee: /^(os\.(Open|OpenFile|ReadFile|Remove|RemoveAll|Create)|ioutil\.ReadFile)$/,
      arg: 0,
    },
    { kind: 'path-traversal', callee: /^http\.ServeFile$/, arg: 2 },
    {
      kind: 'path-traversal',
      callee: /^(os\.(WriteFile|Mkdir|MkdirAll|Rename|Truncate|Chmod)|ioutil\.WriteFile)$/,
      arg: 0,
    },
    // Gin's upload saved under a path built from the client's file name.
    { kind: 'path-traversal', callee: /^(c|ctx)\.SaveUploadedFile$/, arg: 1 },
    // Echo's `c.HTML(code, html)` writes the string as the HTML body (Gin's `c.HTML(code, name, data)` names a template).
    { kind: 'xss', callee: /^(c|ctx)\.HTML$/, arg: 1, unless: /^\w+\.HTML\([^,]+,\s*"[^"]*"\s*,/ },
    {
      kind: 'path-traversal',
      callee: /^(c|ctx)\.(File|FileAttachment|SendFile|Attachment|Download)$/,
      arg: 0,
    },
    { kind: 'xss', callee: /^(c|ctx)\.(Data|Blob)$/, arg: 2, when: /text\/html/ },
    { kind: 'xss', callee: /^io\.WriteString$/, arg: 1 },
    { kind: 'ssrf', callee: /^http\.(Get|Post|Head)$/, arg: 0 },
    { kind: 'ssrf', callee: /^http\.NewRequest$/, arg: 1 },
    { kind: 'ssrf', callee: /^http\.NewRequestWithContext$/, arg: 2 },
    { kind: 'ssrf', callee: /^(http\.DefaultClient|\w*[cC]lient)\.(Get|Post|Head|PostForm)$/, arg: 0 },
    // Log injection (CodeQL go/log-injection, gosec G706): a value from the request written into a log line can
    // forge entries with a line break. slog's key-value attributes are escaped by its handlers: only the message.
    {
      kind: 'log-injection',
      callee: /^log\.(Print|Printf|Println|Fatal|Fatalf|Fatalln|Panic|Panicf|Panicln)$/,
      arg: 'any',
    },
    { kind: 'log-injection', callee: /^slog\.(Debug|Info|Warn|Error)(Context)?$/, arg: 0 },
    // SMTP command injection (gosec G707): an envelope address with a line break adds SMTP commands.
    { kind: 'smtp-injection', callee: /^smtp\.SendMail$/, arg: 2 },
    { kind: 'smtp-injection', callee: /^smtp\.SendMail$/, arg: 3 },
    { kind: 'smtp-injection', callee: /\.(Mail|Rcpt)$/, arg: 0 },
    // A template parsed from input runs its actions against the data passed in (calling its exported methods).
    {
      kind: 'template-injection',
      callee: /^template\.(New|Must)\(.*\)\.Parse$|^\w*([tT]mpl|[tT]emplate)\.Parse$/,
      arg: 0,
    },
    { kind: 'open-redirect', callee: /^http\.Redirect$/, arg: 2 },
    { kind: 'open-redirect', callee: /^(c|ctx)\.Redirect$/, arg: 'any' },
  ],
};
