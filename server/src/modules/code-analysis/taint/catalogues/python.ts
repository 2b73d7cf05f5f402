import { pythonFlow } from '../flow/python';
import type { TaintLanguage } from '../types';
import { INPUT_NAMES, lambdaEvent, MCP_DECORATED } from './shared';

const REQUEST = String.raw`^(flask\.)?request\.`;

/** A MongoDB collection's filter-taking methods, on a receiver named as collections are (not `str.find`). */
const MONGO_FILTER_METHOD =
  /(^|\.)(db|database|mongo|client|\w*coll(ection)?s?)(\.\w+|\[[^\]]+\])*\.(find|find_one|find_one_and_update|find_one_and_delete|find_one_and_replace|update_one|update_many|delete_one|delete_many|replace_one|count_documents|aggregate)$/i;

/**
 * Python: Flask (also as `flask.request`), Django, FastAPI and Tornado sources; DB-API, subprocess/os, eval, pickle
 * and YAML, files, HTTP clients, redirects, LDAP (ldap3, python-ldap), XPath (lxml), the session, XML parsers
 * configured to resolve external entities, and what a route handler returns (the response body).
 */
export const python: TaintLanguage = {
  urlHosts: true,
  assignments: [
    { type: 'assignment', target: 'left', value: 'right' },
    { type: 'augmented_assignment', target: 'left', value: 'right' },
    { type: 'named_expression', target: 'name', value: 'value' },
  ],
  calls: ['call'],
  flow: pythonFlow,
  propertySinks: [{ target: /^(flask\.)?session\[/, kind: 'trust-boundary' }],
  sources: [
    new RegExp(
      `${REQUEST}(args|form|values|json|data|cookies|headers|files|query_string|GET|POST|COOKIES|META|body|query_params|path_params|query|match_info|rel_url)\\b`,
    ),
    /^sys\.argv\b/,
    /^os\.environ\b/,
    /^self\.request\.(GET|POST|body|query_arguments|body_arguments|arguments|files|headers|uri)\b/,
  ],
  localInput: {
    sources: [/^sys\.stdin\b/],
    sourceCalls: [
      // Files, sockets and HTTP responses are read by method: `f.read()`, `resp.read()`, `conn.recv(…)`.
      /\.(read|readline|readlines|read_text|read_bytes|recv|recvfrom|makefile)$/,
      /^(urllib\.request\.)?urlopen$|^requests\.(get|post|put|request)$|^httpx\.(get|post)$/,
      /\.(fetchone|fetchall|fetchmany)$/,
      /^(json|yaml|toml|tomllib|pickle)\.load$|^csv\.(reader|DictReader)$/,
      /^(config|parser|cfg|configparser)\.(get|getint|items)$/,
    ],
  },
  sourceCalls: [
    /^input$/,
    /^raw_input$/,
    /^os\.getenv$/,
    /^os\.environ\.get$/,
    new RegExp(`${REQUEST}(args|form|values|cookies|headers|files)\\.(get|getlist|to_dict)$`),
    new RegExp(`${REQUEST}(get_json|get_data)$`),
    /^sys\.stdin\.read(line)?$/,
    // Tornado's RequestHandler reads the request through its own methods.
    /^self\.get_(argument|arguments|query_argument|query_arguments|body_argument|body_arguments|cookie|secure_cookie)$/,
    /^socket\.recv$|\.recv$/,
  ],
  sanitizers: [/^(int|float|bool|len)$/, /^uuid\.UUID$/],
  kindSanitizers: [
    {
      callee:
        /^(html\.escape|escape|markupsafe\.escape|flask\.escape|bleach\.clean|cgi\.escape|xml\.sax\.saxutils\.escape|saxutils\.escape)$|(^|\.)(escape_?(for_?)?html|html_?escape)$/i,
      kinds: ['xss'],
    },
    { callee: /^(shlex\.quote|pipes\.quote)$/, kinds: ['command-injection'] },
    { callee: /^(json\.dumps|repr)$/, kinds: ['log-injection'] },
    {
      callee: /^(os\.path\.basename|secure_filename|werkzeug\.utils\.secure_filename)$/,
      kinds: ['path-traversal'],
    },
    { callee: /(^|\.)escape_filter_chars$|(^|\.)escape_rdn$/, kinds: ['ldap-injection'] },
    {
      callee: /^(urllib\.parse\.quote|quote|quote_plus|urllib\.parse\.quote_plus)$/,
      kinds: ['xss', 'path-traversal'],
    },
  ],
  parameterTypes: [
    'identifier',
    'typed_parameter',
    'default_parameter',
    'typed_default_parameter',
    'list_splat_pattern',
    'dictionary_splat_pattern',
  ],
  parameterSources: [{ name: INPUT_NAMES }, lambdaEvent, MCP_DECORATED],
  // Flask/FastAPI routes: the parameters are URL captures; Django views take the request first, then the captures.
  handler: {
    decorator: /@\w+\.(route|get|post|put|patch|delete|api_route)\(/,
    firstParameter: /^request$/,
  },
  returnSink: {
    kind: 'xss',
    unless:
      /(^|\.)(jsonify|redirect|send_file|send_from_directory|render_template|render_template_string|get_template\(.*\)\.render|TemplateResponse|abort|url_for|dumps|JSONResponse|JsonResponse|Response)$/,
  },
  safeParameter: /:\s*(int|float|bool|uuid\.UUID|UUID)\s*(=.*)?$/,
  sinks: [
    { kind: 'reflection', callee: /^(importlib\.import_module|import_module|__import__)$/, arg: 0 },
    // `getattr(handler, request.args["op"])`: the request picks any attribute, private helpers and dunders included.
    { kind: 'reflection', callee: /^getattr$/, arg: 1 },
    // `user_text.format(obj)` lets the text read the object's attributes (`{0.__class__…}`).
    { kind: 'format-string', callee: /\.format$/, arg: 'receiver', unless: /^["']/ },
    { kind: 'sql-injection', callee: /\.(execute|executemany|executescript|raw)$/, arg: 0 },
    // asyncpg's connections and pools run the query text of `fetch`, `fetchrow`, `fetchval` and `cursor`.
    {
      kind: 'sql-injection',
      callee:
        /^(\w*conn\w*|con|pool|db|tx|transaction|self\.(\w*conn\w*|pool|db))\.(fetch|fetchrow|fetchval|cursor)$/i,
      arg: 0,
    },
    // Django's raw SQL fragments: RawSQL(sql, params) and QuerySet.extra(select=, where=, tables=, order_by=).
    { kind: 'sql-injection', callee: /(^|\.)RawSQL$/, arg: 0 },
    // `extra(select={"total": sql})`, `extra(where=[sql])`: each entry under these keywords is SQL text; `params`
    // and `select_params` are bound.
    { kind: 'sql-injection', callee: /\.extra$/, arg: 'options', keys: /^(select|where|tables|order_by)$/ },
    {
      kind: 'command-injection',
      callee:
        // Python 2's `os.popen2/3/4` and `popen2.popen*` (Bandit B605) run their text in a shell as os.popen does.
        /^(os\.system|os\.popen[234]?|popen2\.popen[234]|commands\.(getoutput|getstatusoutput)|subprocess\.getoutput|subprocess\.getstatusoutput)$/,
      arg: 0,
    },
    {
      kind: 'command-injection',
      callee: /^subprocess\.(run|call|check_call|check_output|Popen)$/,
      arg: 0,
      when: /shell\s*=\s*True/,
    },
    { kind: 'command-injection', callee: /^asyncio\.(subprocess\.)?create_subprocess_shell$/, arg: 0 },
    // The program an argument vector runs, chosen by input, is any program.
    {
      kind: 'command-injection',
      callee: /^asyncio\.(subprocess\.)?create_subprocess_exec$/,
      arg: 0,
      audit: false,
    },
    // `os.execl(path, …)`, `os.spawnlp(mode, file, …)`: the input names the program run; with a shell and `-c` in the
    // arguments (`os.execv("/bin/sh", ["sh", "-c", cmd])`) any argument is a command line.
    { kind: 'command-injection', callee: /^os\.exec(l|le|lp|lpe|v|ve|vp|vpe)$/, arg: 0, audit: false },
    { kind: 'command-injection', callee: /^os\.spawn(l|le|lp|lpe|v|ve|vp|vpe)$/, arg: 1, audit: false },
    {
      kind: 'command-injection',
      callee: /^os\.(exec|spawn)(l|le|lp|lpe|v|ve|vp|vpe)$|^asyncio\.(subprocess\.)?create_subprocess_exec$/,
      arg: 'any',
      when: /["']-c["']/,
      audit: false,
    },
    // paramiko's SSHClient.exec_command runs its argument as a command line on the remote host.
    { kind: 'command-injection', callee: /\.exec_command$/, arg: 0 },
    {
      kind: 'command-injection',
      callee: /^subprocess\.(run|call|check_call|check_output|Popen)$/,
      arg: 0,
      shellList: true,
    },
    // Without a shell the first argument names the program run, as a string or as the head of an argument vector:
    // input choosing it runs any program (CodeQL py/command-line-injection, Semgrep's subprocess-injection). The
    // other items of a vector are that program's arguments, and stay quiet.
    {
      kind: 'command-injection',
      callee: /^subprocess\.(run|call|check_call|check_output|Popen)$/,
      arg: 0,
      listHead: /^list$/,
      unless: /shell\s*=\s*True/,
      audit: false,
      // A vector held in a name (`args = ["echo", param]`) is a collection whose head is read nowhere here: only a
      // vector written in the call, or a program string, is judged.
      wholeValue: true,
    },
    { kind: 'code-injection', callee: /^(eval|exec|compile)$/, arg: 0 },
    // A sub-interpreter runs the text as Python (PEP 554/734: `_xxsubinterpreters`, `_interpreters`, `interpreters`).
    {
      kind: 'code-injection',
      callee: /^(_xxsubinterpreters|_interpreters|interpreters)\.run_string$/,
      arg: 1,
    },
    // Server-side template injection (CodeQL py/template-injection): Jinja2, Mako and Django templates compiled
    // from input run its expressions (`{{ cycler.__init__.__globals__.os.popen(…) }}`). string.Template only
    // substitutes names.
    {
      kind: 'template-injection',
      callee:
        /^((flask\.)?render_template_string|(jinja2\.)?Template|(mako\.template\.)?Template)$|\.from_string$/,
      arg: 0,
      unlessInFile: /from string import Template\b|\bstring\.Template\(/,
    },
    // Log injection (CodeQL py/log-injection): a line break in a logged value forges the entries after it.
    {
      kind: 'log-injection',
      callee:
        /^(logging|(self\.)?_?(log|logger|LOG|LOGGER)|\w+_logger|(current_)?app\.logger)\.(debug|info|warning|warn|error|critical|exception|fatal)$/,
      arg: 'any',
    },
    {
      kind: 'xss',
      callee:
        /^((flask\.)?Markup|render_template_string|HttpResponse(BadRequest|NotFound|Forbidden|NotAllowed|Gone|ServerError)?|(flask\.)?make_response|mark_safe|HTMLResponse|(markupsafe\.)?Markup)$/,
      arg: 0,
    },
    // `format_html(f"<b>{name}</b>")`: text formatted before format_html sees it is not escaped (the values belong in
    // its own arguments: `format_html("<b>{}</b>", name)`).
    { kind: 'xss', callee: /^(django\.utils\.html\.)?format_html$/, arg: 0 },
    // Django mail: an HTML body built from input.
    {
      kind: 'xss',
      callee: /^(django\.core\.mail\.)?(send_mail|mail_admins|mail_managers)$/,
      arg: 'options',
      keys: /^html_message$/,
    },
    {
      kind: 'unsafe-deserialization',
      callee: /^(pickle|cPickle|_pickle|dill|marshal|shelve|jsonpickle)\.(loads?|open|decode|Unpickler)$/,
      arg: 0,
    },
    {
      kind: 'unsafe-deserialization',
      callee: /^yaml\.(load|load_all|unsafe_load|full_load)$/,
      arg: 0,
      unless: /SafeLoader|CSafeLoader|safe_load/,
    },
    {
      kind: 'path-traversal',
      callee:
        /^(open|send_file|(flask\.)?send_file|(web\.)?FileResponse|os\.remove|os\.unlink|os\.open|os\.listdir|shutil\.rmtree|shutil\.copy\w*|io\.open|codecs\.open|pathlib\.Path|Path)$/,
      arg: 0,
    },
    {
      kind: 'ssrf',
      callee:
        /^(requests|httpx)\.(get|post|put|patch|delete|head|request)$|^urllib\.request\.urlopen$|^urlopen$/,
      arg: 0,
    },
    {
      kind: 'open-redirect',
      callee: /^((flask|django\.shortcuts)\.)?(redirect|HttpResponseRedirect)$/,
      arg: 0,
    },
    // ldap3 Connection.search(base, filter, …); python-ldap search_s(base, scope, filter, …).
    { kind: 'ldap-injection', callee: /^(?!re\.|regex\.)[\w.]+\.search$/, arg: 1 },
    { kind: 'ldap-injection', callee: /\.search(_s|_st|_ext|_ext_s)$/, arg: 2 },
    {
      kind: 'xpath-injection',
      callee: /^((lxml\.)?etree\.)?(XPath|ETXPath)$|\.xpath$|\.XPathEvaluator$/,
      arg: 0,
    },
    { kind: 'xpath-injection', callee: /^elementpath\.(select|iter_select)$/, arg: 1 },
    { kind: 'xpath-injection', callee: /^elementpath\.Selector$/, arg: 0 },
    // pymongo / Motor: a filter taken whole from input (a JSON body adds `$ne`, `$gt`, `$where` operators), or
    // `$where` JavaScript built from input. The receiver is a collection (`db.users`, `db["users"]`, `orders_coll`).
    {
      kind: 'nosql-injection',
      callee: MONGO_FILTER_METHOD,
      arg: 0,
      argTypes: /^(identifier|subscript|attribute|call)$/,
    },
    {
      kind: 'nosql-injection',
      callee: MONGO_FILTER_METHOD,
      arg: 0,
      entry: '$where',
    },
    {
      kind: 'xxe',
      callee:
        /^(xml\.dom\.minidom\.parse(String)?|minidom\.parse(String)?|xml\.sax\.parse(String)?|sax\.parse(String)?|(lxml\.)?etree\.(fromstring|parse|XML)|\w+\.parse)$/,
      arg: 0,
      whenInFunction: /feature_external_(ges|pes)\s*,\s*True|resolve_entities\s*=\s*True/,
    },
  ],
};
