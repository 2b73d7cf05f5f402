import { csharpFlow } from '../flow/csharp';
import type { TaintLanguage } from '../types';
import { INPUT_NAMES, MCP_ANNOTATED } from './shared';

/** C#: ASP.NET Core (controllers and their bound parameters), ADO.NET, EF Core. */
export const csharp: TaintLanguage = {
  assignments: [
    { type: 'variable_declarator', target: 'name', value: '*last' },
    { type: 'assignment_expression', target: 'left', value: 'right' },
  ],
  calls: ['invocation_expression', 'object_creation_expression'],
  flow: csharpFlow,
  propertySinks: [
    { target: /\.CommandText$/, kind: 'sql-injection' },
    { target: /\.Filter$/, kind: 'ldap-injection' },
    // Web Forms: a Label's or Literal's Text and a control's InnerHtml are written to the page unencoded.
    { target: /(^|\.)(lbl|lit)[A-Z]\w*\.Text$|\.InnerHtml$/, kind: 'xss' },
  ],
  sources: [/^(HttpContext\.)?Request\.(Query|Form|QueryString|Headers|Cookies|Body|Path|RouteValues)\b/],
  parameterTypes: ['parameter'],
  parameterSources: [
    { name: INPUT_NAMES },
    { text: /\[From(Query|Route|Body|Form|Header)\b/ },
    MCP_ANNOTATED,
  ],
  // MVC model binding: an action's parameters come from the route, the query string, the form or the body.
  handler: {
    decorator: /\[(Http(Get|Post|Put|Delete|Patch)|Route|AcceptVerbs)\b/,
    enclosingClass: {
      header: /:\s*([\w.]+\.)?(Controller|ControllerBase|ApiController)\b/,
      method: /\bpublic\b/,
    },
  },
  safeParameter:
    /\b(int|long|short|bool|double|float|decimal|Guid|DateTime|CancellationToken|HttpContext|HttpRequest|ILogger(<\w+>)?)\??\s+\w+\s*(=.*)?$/,
  sourceCalls: [/^Console\.ReadLine$/, /^Environment\.GetEnvironmentVariable$/],
  localInput: {
    sourceCalls: [
      /^File\.(ReadAllText|ReadAllLines|ReadAllBytes|ReadLines)$|\.(ReadLine|ReadToEnd|ReadLineAsync|ReadToEndAsync)$/,
      /^Environment\.GetCommandLineArgs$|\.GetStringAsync$|\.ReadAsStringAsync$/,
      /^(reader|rdr|dataReader|SqlDataReader|DbDataReader)\.(GetString|GetValue)$/,
    ],
  },
  sanitizers: [
    /^(int|long|Int32|Int64|Guid|decimal)\.Parse$/,
    /^(HttpUtility|WebUtility)\.(HtmlEncode|UrlEncode)$|^HtmlEncoder\.Default\.Encode$/,
    /^Path\.GetFileName$/,
    /^Uri\.EscapeDataString$/,
  ],
  kindSanitizers: [
    {
      callee: /^(Encoder\.LdapFilterEncode|LdapFilterEncode|Encoder\.LdapDistinguishedNameEncode)$/,
      kinds: ['ldap-injection'],
    },
  ],
  sinks: [
    {
      kind: 'reflection',
      callee: /^(Type\.GetType|Assembly\.Load|Assembly\.LoadFrom|Activator\.CreateInstance)$/,
      arg: 0,
    },
    { kind: 'header-injection', callee: /\.(AddHeader|AppendHeader)$/, arg: 1 },
    // ASP.NET Core's header dictionary and cookies: a line break in the value splits the response on servers that
    // do not reject it.
    {
      kind: 'header-injection',
      callee: /^(HttpContext\.)?Response\.(Headers\.(Add|Append|TryAdd)|Cookies\.Append)$/,
      arg: 1,
    },
    // Log forging (CodeQL cs/log-forging): Microsoft.Extensions.Logging, and log4net/NLog/Serilog loggers.
    {
      kind: 'log-injection',
      callee:
        /\.(LogTrace|LogDebug|LogInformation|LogWarning|LogError|LogCritical)$|^_?(log|logger|Log|Logger)\.(Debug|Info|Information|Warn|Warning|Error|Fatal|Verbose|Trace)(Format)?$/,
      arg: 'any',
    },
    { kind: 'format-string', callee: /^(String|string)\.Format$/, arg: 0 },
    {
      kind: 'sql-injection',
      callee:
        /^new(SqlCommand|SqliteCommand|NpgsqlCommand|MySqlCommand|OleDbCommand)$|\.(ExecuteSqlRaw|ExecuteSqlRawAsync|FromSqlRaw)$/,
      arg: 0,
    },
    { kind: 'command-injection', callee: /^Process\.Start$|^newProcessStartInfo$/, arg: 'any' },
    { kind: 'code-injection', callee: /^CSharpScript\.(EvaluateAsync|RunAsync|Create)(<.*>)?$/, arg: 0 },
    // Templates compiled from input: RazorEngine runs C# in `@{ }`, Scriban/DotLiquid/Fluid expose the model's members.
    {
      kind: 'template-injection',
      callee:
        /^((Engine\.)?Razor|\w*[eE]ngine\.Razor)\.(RunCompile|Compile|Parse)$|^(Template|FluidParser|\w*[pP]arser)\.Parse(Liquid)?$/,
      arg: 0,
    },
    { kind: 'template-injection', callee: /\.CompileRenderStringAsync$/, arg: 1 },
    { kind: 'xss', callee: /^(Response\.Write|Html\.Raw|newHtmlString|newMarkupString)$/, arg: 0 },
    { kind: 'xss', callee: /^(Content|base\.Content)$/, arg: 0, when: /text\/html/ },
    { kind: 'xss', callee: /^Response\.WriteAsync$|^HttpContext\.Response\.WriteAsync$/, arg: 0 },
    {
      kind: 'unsafe-deserialization',
      callee:
        /^(new(BinaryFormatter|SoapFormatter|NetDataContractSerializer|LosFormatter|ObjectStateFormatter)\(\)|\w*[Ff]ormatter\w*)\.(Deserialize|UnsafeDeserialize)$/,
      arg: 0,
    },
    // fastJSON and FsPickler embed type names in their payloads by default.
    {
      kind: 'unsafe-deserialization',
      callee: /^(fastJSON\.)?JSON\.ToObject(<.*>)?$|\.(UnPickle|UnPickleOfString)(<.*>)?$/,
      arg: 0,
    },
    // `new DirectorySearcher(filter)`, `new DirectorySearcher(root, "(uid=" + u + ")")`: the filter is text; the search
    // root (a DirectoryEntry, whose bind user name is no filter) is not.
    {
      kind: 'ldap-injection',
      callee: /^newDirectorySearcher$/,
      arg: 'any',
      argTypes: /^(string_literal|interpolated_string_expression|binary_expression|invocation_expression)$/,
    },
    // MongoDB's driver parses a string filter as JSON: text built from input can add operators (`$where`, `$ne`).
    {
      kind: 'nosql-injection',
      callee:
        /\.(Find|FindAsync|FindSync|FindOneAndUpdate|FindOneAndDelete|DeleteOne|DeleteMany|UpdateOne|UpdateMany|CountDocuments)$|^(BsonDocument\.Parse|BsonSerializer\.Deserialize<BsonDocument>)$/,
      arg: 0,
      argTypes: /^(binary_expression|interpolated_string_expression)$/,
    },
    {
      kind: 'xpath-injection',
      callee:
        /\.(SelectNodes|SelectSingleNode)$|^XPathExpression\.Compile$|^\w*(nav|navigator)\w*\.(Evaluate|Select|Compile)$/i,
      arg: 0,
    },
    {
      kind: 'path-traversal',
      callee:
        /^((System\.IO\.)?File\.(ReadAllText|ReadAllBytes|ReadAllLines|ReadLines|OpenRead|OpenText|Open|Delete|WriteAllText|WriteAllBytes|AppendAllText|Copy|Move)|PhysicalFile|newFileStream|newStreamReader|newStreamWriter|newFileInfo)$/,
      arg: 0,
    },
    {
      kind: 'ssrf',
      callee:
        /\.(GetAsync|GetStringAsync|GetByteArrayAsync|GetStreamAsync|PostAsync|DownloadString|DownloadStringTaskAsync|DownloadData|DownloadFile|OpenRead)$|^(WebRequest|HttpWebRequest)\.Create$/,
      arg: 0,
    },
    {
      kind: 'open-redirect',
      callee: /^(Redirect|RedirectPermanent|Response\.Redirect|newRedirectResult)$/,
      arg: 0,
    },
  ],
};
