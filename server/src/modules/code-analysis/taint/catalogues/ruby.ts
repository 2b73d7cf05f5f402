import { rubyFlow } from '../flow/ruby';
import type { TaintLanguage } from '../types';

/** Ruby: Rails controllers, Sinatra, the standard library. */
export const ruby: TaintLanguage = {
  urlHosts: true,
  assignments: [
    { type: 'assignment', target: 'left', value: 'right' },
    { type: 'operator_assignment', target: 'left', value: 'right' },
  ],
  calls: ['call', 'subshell', 'regex'],
  flow: rubyFlow,
  parameterTypes: ['identifier', 'optional_parameter', 'keyword_parameter'],
  sources: [
    /^params\b/,
    /^request\.(params|query_string|body|headers|cookies|env)\b/,
    // Signed and encrypted cookies carry the server's own values: a client cannot forge them.
    /^cookies\b(?!(\.\w+)*\.(signed|encrypted)\b)/,
    /^ARGV\b/,
  ],
  sourceCalls: [/^gets$/, /^STDIN\.(read|gets)$|^\$stdin\.(read|gets)$/],
  localInput: {
    // The environment is the deployment's configuration, input only when the threat model counts local input.
    sources: [/^\$stdin\b/, /^STDIN\b/, /^ENV\b/],
    sourceCalls: [
      /^(File|IO)\.(read|readlines|foreach)$|\.(read|readlines|gets|recv)$/,
      /^(Net::HTTP\.get|URI\.open|open-uri|HTTParty\.get|Faraday\.get)$/,
    ],
  },
  kindSanitizers: [
    // Line breaks replaced away cannot start a new log line.
    { callee: /\.(gsub|tr|delete|squish)$/, when: /\\r|\\n/, kinds: ['log-injection', 'header-injection'] },
    // `inspect` and `to_json` quote the string, escaping line breaks.
    { callee: /\.(inspect|to_json|dump)$/, kinds: ['log-injection'] },
    // `simple_format(text)` sanitises the HTML it returns unless told `sanitize: false`.
    { callee: /(^|\.)simple_format$/, kinds: ['xss'], when: /^(?![\s\S]*\bsanitize:\s*false)/ },
    // `redirect_to params.permit(:page, :sort)`: a hash of options builds a URL on this host unless it names one.
    {
      callee: /^params(\.require\(\S+\))?\.permit$/,
      kinds: ['open-redirect'],
      when: /^(?![\s\S]*:(host|domain|subdomain|protocol)\b)/,
    },
    // Rails route helpers (`report_path(id)`) build a path of this application.
    { callee: /^\w+_path$/, kinds: ['open-redirect'] },
    // The drivers' own quoting (mysql2 `client.escape`, pg `conn.escape_string`/`escape_literal`/`quote_ident`) makes
    // a value one SQL literal or identifier; Regexp/URI/CGI escaping does not quote for SQL.
    {
      callee:
        /^(?!(Regexp|URI|CGI|Shellwords)\.)[\w@$:]+(\.\w+)*\.(escape|escape_string|escape_literal|escape_identifier|quote_ident)$/,
      kinds: ['sql-injection'],
    },
    {
      callee:
        /^Net::LDAP::Filter\.(eq|equals|begins|ends|contains|ge|le|present)$|^Net::LDAP::Filter\.escape$/,
      kinds: ['ldap-injection'],
    },
  ],
  sanitizers: [
    /\.(to_i|to_f|to_sym)$/,
    /^(Integer|Float)$/,
    /^(sanitize|h|html_escape|ERB::Util\.html_escape|CGI\.escapeHTML|Shellwords\.escape|File\.basename|([\w:]+\.)?connection\.quote(_string)?)$/,
    /\.shellescape$/,
    /^cookies(\.\w+)*\.(signed|encrypted)(\.\w+)*$/,
  ],
  // ActiveRecord binds the list's values into its template (quoted); `sanitize_sql("… #{x}")` of text is that text.
  templateSanitizers: [
    {
      callee: /(^|\.)sanitize_sql(_array|_for_conditions|_for_assignment|_for_order)?$/,
      kinds: ['sql-injection'],
      list: /^array$/,
    },
  ],
  sinks: [
    { kind: 'reflection', callee: /^(Object\.)?const_get$|\.const_get$/, arg: 0 },
    // ActiveRecord's query methods and the connection's: their first argument is SQL text (Brakeman check_sql). A
    // list counts by its template (`where(["name = ?", name])` binds the rest); a hash of conditions binds its values.
    // Without a receiver too: inside a model (`def self.search(t) where("…#{t}") end`) or a migration (`execute`).
    {
      kind: 'sql-injection',
      callee:
        /(^|\.)(where|where\.not|rewhere|find_by!?|find_or_create_by!?|find_or_initialize_by|find_by_sql|count_by_sql|execute|exec_query|exec_update|exec_delete|exec_insert|select_all|select_one|select_value|select_values|select_rows|order|reorder|in_order_of|joins|left_joins|left_outer_joins|having|pluck|group|from|lock|calculate|delete_all|update_all|destroy_all|destroy_by|delete_by)$/,
      arg: 0,
      argTypes: /^(string|binary|identifier|call|element_reference)$/,
      listHead: /^array$/,
    },
    // `IO.popen(["sh", "-c", cmd])`: a vector that starts a shell with `-c` runs its items as a command line. Kernel's
    // `exec`/`spawn`/`system` read a leading array as `[program, argv0]` and refuse three items, but code written so
    // means a command line (Semgrep's dangerous-exec reports it), and it is reported as one.
    {
      kind: 'command-injection',
      callee: /^((Kernel|Process)\.)?(system|exec|spawn)$|^(IO\.popen|Open3\.\w+|PTY\.spawn)$/,
      arg: 0,
      shellList: true,
      parameters: true,
    },
    // The drivers under ActiveRecord take SQL text too: pg's `conn.exec`/`exec_params`/`async_exec`, mysql2's and
    // Trilogy's `client.query`, Sequel's `DB.run` (Brakeman, Semgrep ruby-pg-sqli). On a receiver only: a bare `exec`
    // is Kernel#exec, a command; `exec_params(sql, [binds])` binds the list, its text is the first argument.
    {
      kind: 'sql-injection',
      callee:
        /^(?!(Kernel|Process)\.)[\w:@$]+(\.\w+)*\.(exec|exec_params|async_exec|async_exec_params|sync_exec|sync_exec_params|query|async_query)$|^(DB|Sequel::Model\.db)\.run$/,
      arg: 0,
      argTypes: /^(string|binary|identifier|call|element_reference)$/,
    },
    // `User.select("name, #{params[:col]}")`, `User.select(params[:cols])`: SQL text (a block filters in Ruby, symbols
    // name columns; Array#select takes no argument).
    { kind: 'sql-injection', callee: /\.select$/, arg: 0, argTypes: /^(string|binary|element_reference)$/ },
    // `Model.first("price > #{x}")`, `exists?("…")`: Rails 2 finders take a conditions string; on an Array a string
    // argument is an error, so text there is SQL.
    {
      kind: 'sql-injection',
      callee: /\.(first|last|all|exists\?|find_each|find_in_batches)$/,
      arg: 0,
      argTypes: /^(string|binary)$/,
      listHead: /^array$/,
    },
    // `Model.sum(params[:column])`, `Model.count("DISTINCT #{c}")`: the column expression is SQL. On a constant
    // (a model, or a query chained from one) only: `items.count(x)` of an Array counts elements equal to x.
    {
      kind: 'sql-injection',
      callee: /^[A-Z][\w:]*(\..*)?\.(count|sum|average|minimum|maximum)$/,
      arg: 0,
      argTypes: /^(string|binary|element_reference)$/,
    },
    // The finders' option hashes (`find(:all, :order => params[:sort])`, `calculate(:sum, :total, conditions: "…")`):
    // these keys take SQL fragments; `:limit`, `:include` and the like do not.
    {
      kind: 'sql-injection',
      callee:
        /(^|\.)(find|first|last|all|exists\?|calculate|count|sum|average|minimum|maximum|find_each|find_in_batches|paginate|scoped|with_scope|named_scope|scope)$/,
      arg: 'options',
      keys: /^(conditions|order|group|having|joins|select|from|lock)$/,
      argTypes: /^(string|binary|identifier|call|element_reference)$/,
      listHead: /^array$/,
    },
    // With several arguments system/exec/spawn run the program without a shell: only the first argument matters.
    // `IO.popen(['grep', q])`, `spawn([prog, argv0])`: an argument list runs no shell, only its program matters.
    {
      kind: 'command-injection',
      callee: /^((Kernel|Process)\.)?(system|exec|spawn)$|^(IO\.popen|Open3\.\w+|PTY\.spawn)$/,
      arg: 0,
      listHead: /^array$/,
    },
    // `Open3.pipeline("sort", cmd)`: each argument is a command line of its own.
    {
      kind: 'command-injection',
      callee: /^Open3\.pipeline(_r|_w|_rw|_start)?$/,
      arg: 'any',
      argTypes: /^(?!array$)/,
    },
    // `open("| cmd")` runs a command (CodeQL rb/kernel-open, RuboCop Security/Open); File.open does not.
    { kind: 'command-injection', callee: /^(Kernel\.)?open$/, arg: 0 },
    // Backticks and `%x(…)` run their text in a shell.
    { kind: 'command-injection', callee: /^(`|%x.)$/, arg: 'any' },
    // `eval`, `obj.instance_eval(s)`, `binding.eval(s)`, ExecJS/MiniRacer `context.eval(js)`, compiled bytecode.
    {
      kind: 'code-injection',
      callee: /(^|\.)(eval|instance_eval|class_eval|module_eval)$|^RubyVM::InstructionSequence\.compile$/,
      arg: 0,
    },
    // Calling a method or naming a class chosen by the request.
    { kind: 'code-injection', callee: /(^|\.)(send|__send__|public_send|method|try!?)$/, arg: 0 },
    // Brakeman's unsafe reflection: a class named by the request.
    { kind: 'reflection', callee: /\.(constantize|safe_constantize)$/, arg: 'receiver' },
    // `render html: x`, `render :text => x` (either spelling of the option; `locals:` and `status:` are not output).
    { kind: 'xss', callee: /^render$/, arg: 'options', keys: /^(inline|html|text)$/ },
    // `render inline:` compiles its string as an ERB template: input there runs Ruby on the server (Brakeman).
    { kind: 'template-injection', callee: /^render$/, arg: 'options', keys: /^inline$/ },
    { kind: 'path-traversal', callee: /^render$/, arg: 'options', keys: /^(file|template|partial|action)$/ },
    // `render params[:page]`, `render page, status: 403`: a template path chosen by the request (Brakeman's dynamic
    // render path, local file inclusion); a Symbol names one of the controller's own templates.
    {
      kind: 'path-traversal',
      callee: /^render$/,
      arg: 0,
      argTypes: /^(string|binary|element_reference|call|identifier)$/,
    },
    // `simple_format(text, {}, sanitize: false)` puts the text into the page as HTML.
    { kind: 'xss', callee: /(^|\.)simple_format$/, arg: 0, when: /\bsanitize:\s*false\b/ },
    { kind: 'xss', callee: /^raw$/, arg: 0 },
    // Brakeman's LinkToHref: a `javascript:` URL from the request runs script when the link is followed.
    { kind: 'xss', callee: /(^|\.)link_to$/, arg: 1 },
    // Brakeman's template injection: ERB, Erubi, Haml or Slim compiling template text from input (Liquid is built
    // for untrusted templates and is not listed).
    {
      kind: 'template-injection',
      callee:
        /^(ERB|Erubi::Engine|Erubis::Eruby|Haml::Template|Haml::Engine|Slim::Template|Tilt::\w*Template)\.new$/,
      arg: 0,
    },
    // Sinatra renders a String given to `erb`/`haml`/`slim` as the template itself (a Symbol names a file).
    { kind: 'template-injection', callee: /^(erb|haml|slim|erubi)$/, arg: 0, argTypes: /^string$/ },
    // Log injection: a request value written into a log line can forge entries.
    {
      kind: 'log-injection',
      callee: /^(Rails\.logger|logger|@logger|LOGGER|\$logger)\.(debug|info|warn|error|fatal|unknown)$/,
      arg: 0,
    },
    { kind: 'xss', callee: /\.html_safe$/, arg: 'receiver' },
    { kind: 'ldap-injection', callee: /^Net::LDAP::Filter\.construct$/, arg: 0 },
    { kind: 'ldap-injection', callee: /\.search$/, arg: 'any', when: /filter:\s*["']/ },
    // Nokogiri's `xpath`/`at_xpath` (bound `$name` variables are passed apart), REXML's XPath.first/match/each.
    { kind: 'xpath-injection', callee: /\.(xpath|at_xpath)$/, arg: 0 },
    { kind: 'xpath-injection', callee: /^(REXML::)?XPath\.(first|match|each)$/, arg: 1 },
    {
      kind: 'unsafe-deserialization',
      // Brakeman's Deserialize: YAML's document loaders, CSV.load (which can build any class), Oj's object mode.
      callee:
        /^(Marshal\.(load|restore)|(YAML|Psych)\.(load|unsafe_load|load_documents|load_stream|parse_documents|parse_stream|unsafe_load_file)|CSV\.load|Oj\.(load|object_load))$/,
      arg: 0,
      // `YAML.load(text, safe: true)` (Psych 3) builds plain data only.
      unless: /\bsafe:\s*true\b/,
    },
    // `JSON.parse(text, create_additions: true)`, `JSON.load`: a `json_class` key instantiates any class it names.
    { kind: 'unsafe-deserialization', callee: /^JSON\.parse$/, arg: 0, when: /create_additions:\s*true/ },
    { kind: 'unsafe-deserialization', callee: /^JSON\.(load|restore)$/, arg: 0 },
    {
      kind: 'path-traversal',
      callee:
        /^((File|Dir|IO|Kernel|PStore|Pathname|Shell|Net::FTP)\.(open|new|read|readlines|readlink|foreach|binread|binwrite|write|delete|unlink|safe_unlink|rename|symlink|link|chmod|chown|lchmod|lchown|chdir|chroot|mkdir|makedirs|rmdir|glob|entries|children|each_child|truncate|sysopen|copy_stream|install|move|syscopy|load|load_file|cat)|Pathname|send_file|FileUtils\.(rm|rm_r|rm_f|rm_rf|remove|remove_file|remove_dir|remove_entry|cp|cp_r|copy|mv|move|ln|ln_s|mkdir|mkdir_p|touch|chmod|chown|install))$/,
      arg: 0,
    },
    {
      kind: 'ssrf',
      callee:
        /^(Net::HTTP\.(get|get_response|get_print|post|post_form|start|new)|Net::FTP\.(open|new)|URI\.open|open|HTTParty\.(get|post|put|patch|delete|head)|RestClient\.(get|post|put|patch|delete|head)|RestClient::Resource\.new|Faraday\.(get|post|put|delete|new)|Excon\.(get|post|put|delete|new)|HTTP\.(get|post|put|delete)|HTTPClient\.(get|post)|Typhoeus\.(get|post|put|delete)|Typhoeus::Request\.new)$/,
      arg: 0,
    },
    // `only_path: true` keeps only the path of the URL: the redirect stays on this site.
    {
      kind: 'open-redirect',
      // Rails `redirect_to`, Sinatra `redirect`.
      callee: /^(redirect_to|redirect)$/,
      arg: 0,
      // `redirect_to [@user, :posts]` builds a polymorphic route of this application.
      argTypes: /^(?!array$)/,
      unless: /\bonly_path:\s*true\b|:only_path\s*=>\s*true\b/,
    },
  ],
};
