import { phpFlow } from '../flow/php';
import type { TaintLanguage } from '../types';
import { INPUT_NAMES } from './shared';

/** PHP: superglobals, mysqli/PDO, the standard library, Laravel. */
export const php: TaintLanguage = {
  urlHosts: true,
  assignments: [
    { type: 'assignment_expression', target: 'left', value: 'right' },
    { type: 'augmented_assignment_expression', target: 'left', value: 'right' },
  ],
  calls: [
    'function_call_expression',
    'member_call_expression',
    'scoped_call_expression',
    'echo_statement',
    'include_expression',
    'require_expression',
    'include_once_expression',
    'require_once_expression',
    'print_intrinsic',
    'shell_command_expression',
    // `new $class(...)`: the callee is `new$class`, its class name the input when that variable is tainted.
    'object_creation_expression',
  ],
  flow: phpFlow,
  // Laravel's request exposes each input as a property (`$request->email`).
  sources: [
    /^\$_(GET|POST|REQUEST|COOKIE|FILES|SERVER)\b/,
    /^\$request->(?!(user|session|has|hasFile|filled|isMethod|ajax|expectsJson|wantsJson|isSecure|secure|is)$)[a-z_]\w*$/,
  ],
  // `(int) $_GET['id']`: a numeric cast.
  cleanMembers: [{ types: ['cast_expression'], pattern: /^\((int|integer|float|double|bool|boolean)\)/ }],
  parameterTypes: ['simple_parameter'],
  parameterSources: [{ name: INPUT_NAMES }],
  safeParameter: /^\s*\??(int|float|bool)\s/,
  sourceCalls: [
    /^(file_get_contents\('php:\/\/input'\)|fgets|readline)$/,
    // Laravel and PSR-7 requests.
    /^\$request->(input|query|get|post|cookie|header|all|route|string|getQueryParams|getParsedBody|getContent)$/,
    /^(request|request\(\)->(input|query|get|post|all|cookie|header)|(Input|Request)::(get|input|all|query))$/,
    // Symfony's Request bags (`getInt`, `getDigits`, `getBoolean` return filtered values and are not listed).
    /^\$request->(query|request|cookies|headers|files|attributes|server)->(get|all|getString|getAlpha)$|^\$request->(toArray|getPayload)$/,
    // WordPress query variables are the request's URL parameters (`?paged=…`, rewrite tags), read unescaped.
    /^(get_query_var|\$wp_query->get|\$wp->query_vars)$/,
  ],
  localInput: {
    sources: [/^\$argv\b/],
    sourceCalls: [
      // The environment is the deployment's configuration, input only when the threat model counts local input.
      /^getenv$/,
      /^(file_get_contents|file|fread|fgetcsv|stream_get_contents|socket_read|socket_recv|parse_ini_file|curl_exec)$/,
      /^(mysqli_fetch_(assoc|array|row|object)|pg_fetch_(assoc|array|row|result))$|->(fetch|fetchAll|fetchColumn|fetch_assoc|fetch_array|fetch_row)$/,
      // WordPress options and user/post meta: database rows that users and other plugins write.
      /^(get_option|get_site_option|get_user_meta|get_post_meta|get_term_meta|get_comment_meta)$/,
    ],
  },
  // Laravel's `e()` is htmlspecialchars with double encoding: safe for HTML, not for SQL or a shell.
  kindSanitizers: [
    { callee: /^ldap_escape$/, kinds: ['ldap-injection'] },
    { callee: /^e$/, kinds: ['xss'] },
    // WordPress escaping: each for its output context.
    {
      callee:
        /^(esc_html|esc_attr|esc_textarea|esc_js|wp_kses|wp_kses_post|wp_kses_data|sanitize_text_field|sanitize_textarea_field|sanitize_email)$/,
      kinds: ['xss'],
    },
    { callee: /^esc_url(_raw)?$/, kinds: ['xss', 'open-redirect'] },
    { callee: /^esc_sql$/, kinds: ['sql-injection'] },
    { callee: /^sanitize_file_name$/, kinds: ['path-traversal'] },
    // Strips tags and line breaks.
    {
      callee: /^sanitize_text_field$/,
      kinds: ['xss', 'log-injection', 'header-injection', 'smtp-injection'],
    },
    // Line breaks replaced away cannot start a new log line or header.
    {
      callee: /^(str_replace|str_ireplace|preg_replace)$/,
      when: /\\r|\\n|PHP_EOL/,
      kinds: ['log-injection', 'header-injection', 'smtp-injection'],
    },
  ],
  sanitizers: [
    /^(intval|floatval|boolval|absint|sanitize_key|htmlspecialchars|htmlentities|strip_tags|escapeshellarg|escapeshellcmd|basename|filter_var|filter_input|mysqli_real_escape_string|addslashes|urlencode|rawurlencode|realpath|\$\w+->quote)$/,
  ],
  sinks: [
    { kind: 'format-string', callee: /^(printf|sprintf|vsprintf|vprintf)$/, arg: 0 },
    {
      kind: 'sql-injection',
      callee:
        /^(mysql_query|pg_query|sqlite_query)$|^(?!\$xp(ath)?\w*->).*->(query|exec|prepare|whereRaw|orWhereRaw|orderByRaw|havingRaw|orHavingRaw|selectRaw|fromRaw|groupByRaw)$|^DB::(select|selectOne|scalar|cursor|statement|affectingStatement|insert|update|delete|unprepared|raw)$/,
      arg: 0,
    },
    // Eloquent's raw fragments on the model class (`User::whereRaw(...)`).
    {
      kind: 'sql-injection',
      callee: /^\w+::(whereRaw|orWhereRaw|orderByRaw|havingRaw|orHavingRaw|selectRaw|fromRaw|groupByRaw)$/,
      arg: 0,
    },
    // Laravel's query builder quotes values, not column names (PDO cannot bind them): a column, sort key or select
    // list chosen by the request (`DB::table('users')->orderBy($sort)`, `User::where($col, $v)`). Only on a query
    // rooted at `DB::table`/`DB::connection` or a model class, not a Collection or a helper facade (`Arr::where`,
    // `Arr::pluck` read arrays).
    {
      kind: 'sql-injection',
      callee:
        /^(DB::(table|connection)\(.*\)(->.*)?->|(?!(Arr|Str|Collection|LazyCollection|Cache|Session|Config|Validator|Request|Input|Cookie|Storage|Log|Http|Route|Auth|Gate|Hash|Crypt|File|View|Lang|URL|Response|Redirect|Event|Queue|Mail|Notification)::)[A-Z]\w*::(\w+\(.*\)->(.*->)?)?)(where|orWhere|whereColumn|whereIn|whereNotIn|whereNull|whereBetween|pluck|orderBy|orderByDesc|latest|oldest|groupBy|having|select|addSelect|max|min|sum|avg|average|value)$/,
      arg: 0,
      argTypes:
        /^(variable_name|member_call_expression|member_access_expression|scoped_call_expression|function_call_expression|subscript_expression|binary_expression|encapsed_string)$/,
    },
    // MongoDB (mongodb/mongodb): a request value may be an array (`?user[$ne]=x`) that adds query operators, so a
    // filter holding one matches what the attacker chooses; `(string)` casts are the fix. In a file that uses the
    // MongoDB library only: elsewhere `$repo->find($id)` is Doctrine's lookup by id.
    {
      kind: 'nosql-injection',
      callee:
        /^\$.*->(find|findOne|findOneAndUpdate|findOneAndDelete|findOneAndReplace|updateOne|updateMany|deleteOne|deleteMany|count|countDocuments|aggregate|distinct)$/,
      arg: 0,
      whenInFile: /\bMongoDB\\|\bMongoClient\b|->selectCollection\(/,
    },
    // `Rule::unique('users')->ignore($request->id, 'id')`: the ignored id goes into the query unbound (Laravel's
    // validation docs warn never to pass request input there).
    { kind: 'sql-injection', callee: /^Rule::unique\(.*\)->ignore$/, arg: 0 },
    // Doctrine's QueryBuilder and other builders given DQL/SQL text built by concatenation or interpolation
    // (`$qb->where("u.name = '" . $name . "'")`); placeholders with `setParameter` are the safe form.
    {
      kind: 'sql-injection',
      callee:
        /->(where|andWhere|orWhere|having|andHaving|orHaving|orderBy|addOrderBy|groupBy|addGroupBy|select|addSelect|join|leftJoin|innerJoin)$/,
      arg: 0,
      argTypes: /^(binary_expression|encapsed_string)$/,
    },
    { kind: 'xpath-injection', callee: /^\$xp(ath)?\w*->(query|evaluate)$/i, arg: 0 },
    { kind: 'ldap-injection', callee: /^ldap_(search|list|read)$/, arg: 2 },
    { kind: 'sql-injection', callee: /^mysqli_query$/, arg: 1 },
    {
      kind: 'command-injection',
      callee: /^(system|exec|shell_exec|passthru|popen|proc_open|pcntl_exec)$/,
      arg: 0,
    },
    { kind: 'code-injection', callee: /^(eval|assert|create_function)$/, arg: 0 },
    // Backticks run the text in a shell, as shell_exec does.
    { kind: 'command-injection', callee: /^`$/, arg: 'any' },
    // mbstring's `e` option evaluates the replacement as PHP code.
    {
      kind: 'code-injection',
      callee: /^mb_(ereg|eregi)_replace$/,
      arg: 1,
      when: /,\s*['"][a-z]*e[a-z]*['"]\s*\)$/,
    },
    // A callable named by the request calls any function (`system`, `phpinfo`).
    {
      kind: 'code-injection',
      callee:
        /^(call_user_func|call_user_func_array|forward_static_call|forward_static_call_array|array_map|register_shutdown_function|register_tick_function|iterator_apply)$/,
      arg: 0,
    },
    // Functions taking the callable second: the request names a function to call on each element.
    {
      kind: 'code-injection',
      callee:
        /^(usort|uasort|uksort|array_filter|array_walk|array_walk_recursive|array_reduce|preg_replace_callback)$/,
      arg: 1,
    },
    // Laravel: a string response is sent as HTML.
    // An array is sent as JSON; text built into markup is HTML.
    {
      kind: 'xss',
      callee: /^(response|Response::make)$/,
      arg: 0,
      argTypes: /^(binary_expression|encapsed_string|string|heredoc)$/,
    },
    { kind: 'xss', callee: /^(echo|print|printf|vprintf)$/, arg: 'any' },
    // `['allowed_classes' => false]` builds no objects: nothing with a magic method can run.
    {
      kind: 'unsafe-deserialization',
      callee: /^unserialize$/,
      arg: 0,
      unless: /['"]allowed_classes['"]\s*=>\s*false/,
    },
    // Laravel's HtmlString is output as is by Blade's `{{ }}`.
    { kind: 'xss', callee: /^newHtmlString$/, arg: 0 },
    // Symfony Process: a command line run by a shell (an array of arguments is not).
    {
      kind: 'command-injection',
      callee: /^(Process::fromShellCommandline|newProcess)$/,
      arg: 0,
      argTypes: /^(?!array_creation_expression$)/,
    },
    {
      kind: 'path-traversal',
      callee:
        /^(include|require|include_once|require_once|file_get_contents|file_put_contents|fopen|readfile|file|unlink|copy|rename|rmdir|mkdir|opendir|scandir|parse_ini_file|highlight_file|show_source|simplexml_load_file|fpassthru|gzopen|gzfile|readgzfile|chmod|chown|touch|symlink|link|tempnam|dir|glob)$/,
      arg: 0,
    },
    { kind: 'ssrf', callee: /^curl_init$/, arg: 0 },
    {
      kind: 'ssrf',
      callee: /^Http::(get|post|put|patch|delete|head)$|^\$(client|http|guzzle)\w*->(get|post|put|delete)$/i,
      arg: 0,
    },
    // `Http::send('GET', $url)`, Guzzle's `$client->request('GET', $url)`: the method comes first.
    { kind: 'ssrf', callee: /^Http::send$|^\$(client|http|guzzle)\w*->request$/i, arg: 1 },
    {
      kind: 'path-traversal',
      callee:
        /^(response\(\)->(download|file)|Storage::(disk\(.*\)->)?(get|download|delete|put|putFile|readStream|writeStream|move|copy|prepend|append)|\$\w+->(download|file))$/,
      arg: 0,
    },
    { kind: 'ssrf', callee: /^curl_setopt$/, arg: 2, when: /CURLOPT_URL/ },
    { kind: 'open-redirect', callee: /^header$/, arg: 0, when: /Location/i },
    // WordPress: `$wpdb` reads of SQL text, redirects and HTTP requests to a URL from input, `maybe_unserialize`.
    { kind: 'sql-injection', callee: /^\$wpdb->(get_results|get_row|get_var|get_col)$/, arg: 0 },
    { kind: 'open-redirect', callee: /^wp_redirect$/, arg: 0 },
    { kind: 'ssrf', callee: /^wp_remote_(get|post|head|request)$/, arg: 0 },
    { kind: 'unsafe-deserialization', callee: /^maybe_unserialize$/, arg: 0 },
    // Symfony: controller redirects, Doctrine DBAL/ORM queries built as text, HTML and file responses.
    { kind: 'open-redirect', callee: /^\$this->redirect$/, arg: 0 },
    {
      kind: 'sql-injection',
      callee:
        /->(executeQuery|executeStatement|executeUpdate|fetchAllAssociative|fetchAssociative|fetchOne|fetchAllNumeric|fetchFirstColumn|fetchAllKeyValue|createQuery|createNativeQuery)$/,
      arg: 0,
    },
    {
      kind: 'xss',
      callee: /^newResponse$/,
      arg: 0,
      argTypes: /^(binary_expression|encapsed_string|heredoc)$/,
    },
    { kind: 'path-traversal', callee: /^newBinaryFileResponse$|^\$this->file$/, arg: 0 },
    // An uploaded file stored under a name from the request (Laravel `storeAs`, Symfony `move`).
    { kind: 'path-traversal', callee: /->(storeAs|storePubliclyAs|move)$/, arg: 1 },
    // psalm's TaintedHeader: a header line built from input (a redirect's `Location:` is the open-redirect sink).
    { kind: 'header-injection', callee: /^header$/, arg: 0, unless: /Location\s*:/i },
    // `mail($to, $subject, $body, $headers)`: line breaks in the recipient or the extra headers add headers (Bcc:).
    { kind: 'smtp-injection', callee: /^mail$/, arg: 0 },
    { kind: 'smtp-injection', callee: /^mail$/, arg: 3 },
    // Log injection: a request value written into a log line can forge entries; PSR-3 context arrays are escaped.
    { kind: 'log-injection', callee: /^error_log$/, arg: 0 },
    { kind: 'log-injection', callee: /^syslog$/, arg: 1 },
    {
      kind: 'log-injection',
      callee:
        /^(Log::|\$(this->)?logger->|\$log->)(debug|info|notice|warning|error|critical|alert|emergency)$/,
      arg: 0,
    },
    // Template text compiled from input runs as template code (Twig's createTemplate, Blade::render, Smarty's
    // `string:`/`eval:` resources, Mustache).
    {
      kind: 'template-injection',
      callee: /->createTemplate$|^Blade::render$|^\$mustache\w*->render$/i,
      arg: 0,
    },
    {
      kind: 'template-injection',
      callee: /^\$(smarty|tpl|view)\w*->(fetch|display)$/i,
      arg: 0,
      when: /['"](string|eval):/,
    },
    // A class named by the request: any autoloaded class's constructor runs (psalm's TaintedCallable).
    { kind: 'reflection', callee: /^new\$\w+$|^newReflectionClass$/, arg: 'receiver' },
    // `$obj->$method()`, `Service::$method()`: the request picks which method runs; `$fn()` calls any function, as
    // `call_user_func($fn)` does.
    { kind: 'reflection', callee: /(->|::)\$\w+$/, arg: 'key' },
    { kind: 'code-injection', callee: /^\$\w+$/, arg: 'key' },
    {
      kind: 'open-redirect',
      callee: /^(redirect|redirect\(\)->(to|away)|Redirect::(to|away)|newRedirectResponse)$/,
      arg: 0,
    },
  ],
};
