import { javascriptFlow } from '../flow/javascript';
import type { TaintLanguage } from '../types';
import { INPUT_NAMES, lambdaEvent, MCP_CALLBACKS } from './shared';

/** JavaScript and TypeScript: Express, Koa, NestJS, Node's standard modules, the DOM. */
export const javascript: TaintLanguage = {
  urlHosts: true,
  assignments: [
    { type: 'variable_declarator', target: 'name', value: 'value' },
    { type: 'assignment_expression', target: 'left', value: 'right' },
    { type: 'augmented_assignment_expression', target: 'left', value: 'right' },
  ],
  calls: ['call_expression', 'new_expression'],
  flow: javascriptFlow,
  propertySinks: [
    { target: /\.(innerHTML|outerHTML)$/, kind: 'xss' },
    // Koa: a string body is sent as HTML.
    {
      target: /^ctx\.(body|response\.body)$/,
      kind: 'xss',
      valueTypes: /^(template_string|string|binary_expression)$/,
    },
    // The browser sent wherever the function's caller says (Semgrep open-redirect-from-function): a parameter counts.
    { target: /^(window\.|document\.)?location(\.href)?$/, kind: 'open-redirect', parameters: true },
    // An iframe's inline document, a script's source: the input becomes the page's markup or code.
    { target: /\.srcdoc$|^\w*script\w*\.src$/i, kind: 'xss' },
  ],
  keySinks: [{ type: 'pair', key: /^__html$/, kind: 'xss' }],
  sources: [
    /^req(uest)?\.(query|body|params|headers|cookies|url|originalUrl)\b/,
    /^(window\.|document\.)?location\.(search|hash|href)\b/,
    /^document\.(cookie|URL|referrer)\b/,
    // A message event's payload (postMessage, a worker, a WebSocket): whatever the sending window or peer wrote
    // (CodeQL's js/xss counts postMessage data as remote input).
    /^(event|evt|ev|e|msg|message|messageEvent)\.data\b/,
    /^ctx\.(query|querystring|params|headers|cookies|request\.(body|query|querystring|params|headers|files))\b/,
  ],
  localInput: {
    // The environment is the deployment's configuration (a service's base URL, a key), the command line and local
    // files the operator's: input only when the threat model counts local input.
    sources: [/^process\.stdin\b/, /^process\.env\b/, /^process\.argv\b/],
    sourceCalls: [
      /^(fs\.)?readFileSync$/,
      /^(fs\.)?(promises\.)?readFile$|^(fs\/promises\.)?readFile$|^fsPromises\.readFile$/,
      /^(fetch|axios|axios\.(get|post|request)|got|got\.(get|post)|http\.get|https\.get)$/,
      /\.(readLine|readline)$/,
    ],
  },
  sourceCalls: [
    /^req(uest)?\.(get|header|param)$/,
    /^ctx\.(get|cookies\.get)$/,
    /^prompt$/,
    /^readline\.question$/,
    /^URLSearchParams\.get$|searchParams\.get$/,
    // Route handlers of Next.js, Remix and other Fetch-API servers read the body of the incoming `request`.
    /^(req|request)\.(json|formData|text)$/,
  ],
  parameterTypes: [
    'identifier',
    'required_parameter',
    'optional_parameter',
    'assignment_pattern',
    'object_pattern',
  ],
  // NestJS binds parameters to the request with decorators.
  parameterSources: [{ name: INPUT_NAMES }, { text: /@(Query|Param|Body|Headers)\(/ }, lambdaEvent],
  callbackSources: MCP_CALLBACKS,
  // A NestJS handler decorated `@Redirect()` sends the browser to the `url` it returns (Semgrep nestjs-open-redirect).
  handler: { decorator: /@Redirect\(/ },
  returnSink: { kind: 'open-redirect', value: /^\{[\s\S]*\burl\s*:/ },
  safeParameter: /:\s*(number|boolean)\s*(=.*)?$/,
  sanitizers: [
    /^(parseInt|parseFloat|Number|Boolean|encodeURIComponent|encodeURI|escape|escapeHtml|sanitize\w*|validator\.\w+|DOMPurify\.sanitize|he\.encode|_\.escape|path\.basename|shellescape|shellEscape|mysql\.escape|\w+\.escape)$/,
  ],
  kindSanitizers: [
    // A string or number cannot carry query operators.
    { callee: /^(String|mongoSanitize|sanitizeFilter|mongo\.sanitize)$/, kinds: ['nosql-injection'] },
    { callee: /^(_\.)?(pick|pickBy)$/, kinds: ['prototype-pollution'] },
    // JSON text escapes line breaks: a serialised value cannot start a new log line.
    { callee: /^JSON\.stringify$/, kinds: ['log-injection'] },
    // `.replace(/[\r\n]/g, '')`, `.replaceAll('\n', ' ')`: line breaks replaced away cannot start a forged log line
    // (a string pattern without replaceAll replaces the first only).
    {
      callee: /\.replace(All)?$/,
      when: /(\\r|\\n)[^)]*\/[a-z]*g[a-z]*\s*,|\.replaceAll\([^)]*(\\r|\\n)/,
      kinds: ['log-injection'],
    },
    // `.replace(/\.\.\//g, '')`, `.replaceAll('..', '')`: the parent-directory steps are removed from the path.
    {
      callee: /\.replace(All)?$/,
      when: /\.replace(All)?\(\s*(\/[^/\n]*\\\.\\\.|["']\.\.)/,
      kinds: ['path-traversal'],
    },
    // ldapjs filter objects and ldap-escape build the filter from escaped values.
    {
      callee: /^new(Equality|Substring|Presence|And|Or|Not)Filter$|^ldapEscape\.filter$/,
      kinds: ['ldap-injection'],
    },
  ],
  sinks: [
    // A format string with more arguments after it: `%o`, `%j` in the input shift what is printed.
    { kind: 'format-string', callee: /^(util\.format|console\.(log|error|warn|info))$/, arg: 0, minArgs: 2 },
    {
      kind: 'sql-injection',
      // DynamoDB's document clients take a request object, not SQL (below).
      callee:
        /^(?!(documentClient|docClient|dynamo\w*|ddb\w*|dynamoDb\w*|dynamoDB\w*)\.)[^(]*\.(query|execute|raw|\$queryRawUnsafe|\$executeRawUnsafe|whereRaw|orderByRaw|havingRaw|selectRaw|joinRaw)$/,
      arg: 0,
    },
    // A whole DynamoDB request object from input (Semgrep dynamodb-request-object): the caller picks the table, key
    // and filter expressions. An object literal whose values come from input binds them as values.
    {
      kind: 'nosql-injection',
      callee:
        /^(documentClient|docClient|dynamo\w*|ddb\w*|dynamoDb\w*|dynamoDB\w*)\.(query|scan|get|put|update|delete|batchGet|batchWrite|transactWrite)$|^new(QueryCommand|ScanCommand|GetItemCommand|PutItemCommand|UpdateItemCommand|DeleteItemCommand|GetCommand|PutCommand|UpdateCommand|DeleteCommand|BatchGetCommand|BatchWriteCommand)$/,
      arg: 0,
      argTypes: /^(identifier|member_expression|subscript_expression|call_expression)$/,
      wholeValue: true,
    },
    {
      kind: 'command-injection',
      callee:
        /^((child_process|childProcess|cp|require\(["'](node:)?child_process["']\))\.)?(exec|execSync)$|^(shell|shelljs)\.exec$|^execaCommand(Sync)?$/,
      arg: 0,
    },
    {
      kind: 'command-injection',
      callee:
        /^((child_process|childProcess|cp|require\(["'](node:)?child_process["']\))\.)?(spawn|spawnSync|execFile|execFileSync)$/,
      arg: 'any',
      when: /shell\s*:\s*true/,
    },
    {
      kind: 'code-injection',
      callee: /^(eval|vm\.runIn\w+|vm\.compileFunction|(new)?vm\.Script|setTimeout|setInterval)$/,
      arg: 0,
    },
    // `handlers[req.query.action](…)`, `new globalThis[name]()`: the input picks which function or class runs, any the
    // object holds (its prototype's `constructor` too), not one the code chose (CodeQL js/unsafe-dynamic-method-access).
    { kind: 'reflection', callee: /\](\.(call|apply))?$/, arg: 'key' },
    // `spawn('sh', ['-c', cmd])`: a shell given `-c` runs its next argument as a command line, whether the list is
    // written in the call or filled item by item (`args.push(cmd)`).
    {
      kind: 'command-injection',
      callee: /^((child_process|childProcess|cp)\.)?(spawn|spawnSync|execFile|execFileSync)$/,
      arg: 1,
      shellList: 'program',
    },
    // The program itself named by the request.
    {
      kind: 'command-injection',
      callee: /^((child_process|childProcess|cp)\.)?(spawn|spawnSync|execFile|execFileSync)$/,
      arg: 0,
      audit: false,
    },
    // A worker thread runs the script file or code the request names.
    { kind: 'code-injection', callee: /^new(Worker|worker_threads\.Worker)$/, arg: 0 },
    // Puppeteer/Playwright: `page.evaluate(code)` runs it in the page; `page.setContent(html)` renders markup that
    // loads what it links from the server's network.
    {
      kind: 'code-injection',
      // `evaluateOnNewDocument` (Puppeteer) and `addInitScript` (Playwright) run it in every page the browser opens.
      callee:
        /^(page|browserPage|tab|context)\.(evaluate|evaluateHandle|evaluateOnNewDocument|addInitScript|addScriptTag)$/,
      arg: 0,
    },
    { kind: 'ssrf', callee: /^(page|browserPage|tab)\.setContent$/, arg: 0 },
    // Sequelize's `literal` is SQL text placed in the query as written.
    { kind: 'sql-injection', callee: /^(sequelize|Sequelize|db\.sequelize)\.literal$/, arg: 0 },
    // `res.render(req.query.view)`: the request picks which template file renders (Semgrep res-render-injection).
    { kind: 'path-traversal', callee: /^(res|response)\.render$/, arg: 0 },
    // `res.writeHead(302, { Location: url })`
    { kind: 'open-redirect', callee: /^(res|response)\.writeHead$/, arg: 1, entry: 'Location' },
    // A module path from the request loads and runs any file (eslint-plugin-security detect-non-literal-require).
    { kind: 'code-injection', callee: /^require$/, arg: 0 },
    // `new Function('a', body)`: every argument is code.
    { kind: 'code-injection', callee: /^(Function|newFunction)$/, arg: 'any' },
    { kind: 'xss', callee: /^(res|response)\.(send|write|end)$|^document\.(write|writeln)$/, arg: 0 },
    { kind: 'xss', callee: /\.insertAdjacentHTML$/, arg: 1 },
    { kind: 'xss', callee: /\.createContextualFragment$/, arg: 0 },
    // `a.setAttribute('href', x)`: a `javascript:` URL runs when followed; `on…` attributes and `srcdoc` are code.
    {
      kind: 'xss',
      callee: /\.setAttribute$/,
      arg: 1,
      when: /setAttribute\(\s*["'](href|src|srcdoc|action|formaction|on\w+)["']/,
    },
    // Client-side redirects: `location.assign(x)`, `location.replace(x)`, `window.open(x)`.
    {
      kind: 'open-redirect',
      callee: /^(window\.|document\.)?location\.(assign|replace)$|^window\.open$/,
      arg: 0,
      parameters: true,
    },
    { kind: 'xss', callee: /^\$\(.*\)\.(html|append|prepend|after|before|replaceWith)$/, arg: 0 },
    // MongoDB/Mongoose filters: a request value may be an object (`?name[$ne]=x`, a JSON body) that adds operators.
    {
      kind: 'nosql-injection',
      callee:
        /\.(find|findOne|findOneAndUpdate|findOneAndDelete|findOneAndReplace|updateOne|updateMany|deleteOne|deleteMany|replaceOne|countDocuments|count|distinct|where|aggregate|exists)$/,
      arg: 0,
      argTypes: /^(object|identifier|member_expression|subscript_expression)$/,
      // Sequelize, TypeORM and Prisma options objects (`findOne({ where: { id } })`) bind their values.
      unless: /\(\s*\{\s*(where|include|attributes|relations|select|order|skip|take)\s*:/,
    },
    // Deep merges and path setters write through `__proto__` when the input names it.
    {
      kind: 'prototype-pollution',
      callee:
        /^(_|lodash|\$|jQuery|hoek|Hoek)\.(merge|mergeWith|defaultsDeep|extend|applyToDefaults)$|^(merge|mergeWith|defaultsDeep|deepmerge|deepMerge|mergeDeep|deepExtend)$/,
      arg: 'any',
    },
    {
      kind: 'prototype-pollution',
      callee: /^(_\.|lodash\.|objectPath\.|dot\.|dottie\.)?(set|setWith|setPath)$/,
      arg: 1,
    },
    // TypeORM's query builder: a condition string is SQL text.
    {
      kind: 'sql-injection',
      callee: /\.(where|andWhere|orWhere|having|andHaving|orHaving|orderBy|addOrderBy|groupBy)$/,
      arg: 0,
      argTypes: /^(template_string|binary_expression)$/,
    },
    // TypeORM puts an `orderBy`/`groupBy` column into the SQL as written (knex quotes its identifiers; not matched).
    {
      kind: 'sql-injection',
      callee:
        /createQueryBuilder\(.*\)(\.\w+\(.*\))*\.(orderBy|addOrderBy|groupBy|addGroupBy)$|^(qb|queryBuilder|query)\.(orderBy|addOrderBy|groupBy|addGroupBy)$/,
      arg: 0,
      argTypes: /^(identifier|member_expression|subscript_expression)$/,
    },
    { kind: 'ldap-injection', callee: /^\w*(client|ldap)\w*\.search$/i, arg: 'any', when: /filter/ },
    // ldapjs `search(base, options, cb)`: the options object holding the filter is often built before the call.
    // Only its second argument, so a search client's single query object (Elasticsearch) is not taken for one.
    {
      kind: 'ldap-injection',
      callee: /^\w*(client|ldap)\w*\.search$/i,
      arg: 1,
      whenInFunction: /\bfilter\b/,
    },
    {
      kind: 'xpath-injection',
      callee: /^(xpath\.(select|select1|evaluate|parse)|document\.evaluate)$/,
      arg: 0,
    },
    { kind: 'unsafe-deserialization', callee: /^(serialize\.)?unserialize$|^(yaml|jsyaml)\.load$/, arg: 0 },
    {
      kind: 'path-traversal',
      callee:
        /^(fs\.)?(readFile|readFileSync|createReadStream|createWriteStream|writeFile|writeFileSync|appendFile|appendFileSync|unlink|unlinkSync|rm|rmSync|rmdir|rmdirSync|readdir|readdirSync|open|openSync)$|^fs\.promises\.(readFile|writeFile|unlink|rm|readdir)$/,
      arg: 0,
    },
    // Express's `res.sendFile(name, { root })` (and `download`) resolve the name under root and refuse a path that
    // leaves it (`send` answers 403 to `..`): only a path given without a root is the sink (Semgrep express-res-sendfile).
    {
      kind: 'path-traversal',
      callee: /^(res|response)\.(sendFile|download)$/,
      arg: 0,
      unless: /\broot\s*:/,
    },
    // `path.join(root, req.query.file)`: `../` in the input climbs out of root, whatever later opens the path (Semgrep
    // express-path-join-resolve-traversal). A function that checks where the result lands (`startsWith(root)`,
    // `path.relative`) is left to the sink it guards.
    {
      kind: 'path-traversal',
      callee: /^path\.(join|resolve)$/,
      arg: 'any',
      unlessInFunction: /\.(startsWith|indexOf)\(|\bpath\.relative\(/,
    },
    {
      kind: 'ssrf',
      callee:
        /^(fetch|axios|axios\.(get|post|put|delete|patch|head|request)|got|request|https?\.(get|request)|needle)$|^(got|superagent|needle|request)\.(get|post|put|delete)$/,
      arg: 0,
    },
    // Headless browsers (Puppeteer, Playwright) load the page the request names from the server's network.
    { kind: 'ssrf', callee: /^(page|browserPage|tab)\.goto$/, arg: 0 },
    // HTML-to-PDF/image renderers (wkhtmltopdf, wkhtmltoimage, html-pdf) load the page or markup they are given,
    // with its links, frames and scripts, from the server's network.
    {
      kind: 'ssrf',
      callee: /^(wkhtmltopdf|wkhtmltoimage(\.generate)?|pdf\.create|htmlPdf\.create|htmlToPdf\.create)$/,
      arg: 0,
    },
    // `res.redirect(302, url)`: the status comes first.
    { kind: 'open-redirect', callee: /^(res|response|ctx)\.redirect$/, arg: 'any' },
    // Fastify: `reply.redirect([code,] url)`, and a reply typed as HTML.
    { kind: 'open-redirect', callee: /^reply\.redirect$/, arg: 'any' },
    { kind: 'xss', callee: /^reply\.type\(["']text\/html[^)]*\)\.send$/, arg: 0 },
    // Next.js (`redirect` of next/navigation, `NextResponse.redirect`), Remix and the Fetch API's `Response.redirect`.
    {
      kind: 'open-redirect',
      callee: /^(redirect|permanentRedirect|NextResponse\.redirect|Response\.redirect)$/,
      arg: 0,
    },
    // Template engines compiling the template text itself (CodeQL js/template-object-injection, Semgrep's
    // ejs/pug/handlebars template-injection rules): the input then runs as template code on the server.
    {
      kind: 'template-injection',
      callee:
        /^((ejs|pug|jade|Sqrl|eta|Eta)\.(render|compile)|nunjucks\.(renderString|compile)|(Handlebars|handlebars|hbs)\.(compile|precompile)|(Mustache|mustache)\.render|(_|lodash)\.template|doT\.template|(liquid|engine)\.parseAndRender)$/,
      arg: 0,
    },
    // Log injection (CodeQL js/log-injection): a request value written into a log line can forge entries. An
    // object argument is printed as an inspected or JSON structure (winston/pino metadata), which escapes line breaks.
    {
      kind: 'log-injection',
      callee: /^console\.(log|info|warn|error|debug)$/,
      arg: 'any',
      argTypes: /^(?!object$)/,
    },
    {
      kind: 'log-injection',
      callee: /^(this\.)?(logger|log|winston|pino|bunyan)\.(info|warn|error|debug|trace|fatal|log)$/,
      arg: 0,
    },
  ],
};
