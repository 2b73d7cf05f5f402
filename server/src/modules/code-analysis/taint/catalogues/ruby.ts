import { rubyFlow } from '../flow/ruby';
import type { TaintLanguage } from '../types';

/** Ruby: Rails controllers, Sinatra, the standard library. */
export const ruby: TaintLanguage = {
  assignments: [
    { type: 'assignment', target: 'left', value: 'right' },
    { type: 'operator_assignment', target: 'left', value: 'right' },
  ],
  calls: ['call', 'subshell'],
  flow: rubyFlow,
  parameterTypes: ['identifier', 'optional_parameter', 'keyword_parameter'],
  sources: [
    /^params\b/,
    /^request\.(params|query_string|body|headers|cookies|env)\b/,
    /^cookies\b/,
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
    // Rails route helpers (`report_path(id)`) build a path of this application.
    { callee: /^\w+_path$/, kinds: ['open-redirect'] },
    {
      callee:
        /^Net::LDAP::Filter\.(eq|equals|begins|ends|contains|ge|le|present)$|^Net::LDAP::Filter\.escape$/,
      kinds: ['ldap-injection'],
    },
  ],
  sanitizers: [
    /\.(to_i|to_f|to_sym)$/,
    /^(Integer|Float)$/,
    /^(sanitize|h|html_escape|ERB::Util\.html_escape|CGI\.escapeHTML|Shellwords\.escape|File\.basename|ActiveRecord::Base\.sanitize_sql|\w+\.connection\.quote)$/,
    /\.shellescape$/,
  ],
  sinks: [
    { kind: 'reflection', callee: /^(Object\.)?const_get$|\.const_get$/, arg: 0 },
    {
      kind: 'sql-injection',
      callee:
        /\.(where|find_by_sql|count_by_sql|execute|exec_query|exec_update|exec_delete|select_all|select_value|select_values|select_rows|order|reorder|joins|having|pluck|group|from|lock|calculate|delete_all|update_all|destroy_by|delete_by)$/,
      arg: 0,
      argTypes: /^(string|binary|identifier|call|element_reference)$/,
    },
    // `User.select("name, #{params[:col]}")`: a string is SQL text (a block or symbols select in Ruby or bind).
    { kind: 'sql-injection', callee: /\.select$/, arg: 0, argTypes: /^string$/ },
    // With several arguments system/exec/spawn run the program without a shell: only the first argument matters.
    {
      kind: 'command-injection',
      callee: /^(system|exec|spawn|IO\.popen|Open3\.\w+|Kernel\.system)$/,
      arg: 0,
      // `IO.popen(['grep', q])`: an argument list runs no shell.
      argTypes: /^(?!array$)/,
    },
    // `open("| cmd")` runs a command (CodeQL rb/kernel-open, RuboCop Security/Open); File.open does not.
    { kind: 'command-injection', callee: /^(Kernel\.)?open$/, arg: 0 },
    { kind: 'command-injection', callee: /^`$/, arg: 'any' },
    { kind: 'code-injection', callee: /^(eval|instance_eval|class_eval|module_eval)$/, arg: 0 },
    // Calling a method or naming a class chosen by the request.
    { kind: 'code-injection', callee: /(^|\.)(send|__send__|public_send|method)$/, arg: 0 },
    // Brakeman's unsafe reflection: a class named by the request.
    { kind: 'reflection', callee: /\.(constantize|safe_constantize)$/, arg: 'receiver' },
    { kind: 'xss', callee: /^render$/, arg: 'any', when: /\b(inline|html|text):/ },
    // `render inline:` compiles its string as an ERB template: input there runs Ruby on the server (Brakeman).
    { kind: 'template-injection', callee: /^render$/, arg: 'any', when: /\binline:/ },
    { kind: 'path-traversal', callee: /^render$/, arg: 'any', when: /\b(file|template|partial|action):/ },
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
      callee: /^(Marshal\.(load|restore)|YAML\.(load|unsafe_load)|Psych\.(load|unsafe_load)|Oj\.load)$/,
      arg: 0,
    },
    // `JSON.parse(text, create_additions: true)`, `JSON.load`: a `json_class` key instantiates any class it names.
    { kind: 'unsafe-deserialization', callee: /^JSON\.parse$/, arg: 0, when: /create_additions:\s*true/ },
    { kind: 'unsafe-deserialization', callee: /^JSON\.(load|restore)$/, arg: 0 },
    {
      kind: 'path-traversal',
      callee: /^(File\.(read|open|write|delete|new|readlines)|IO\.read|send_file|FileUtils\.rm(_rf)?)$/,
      arg: 0,
    },
    {
      kind: 'ssrf',
      callee:
        /^(Net::HTTP\.(get|get_response|post_form)|URI\.open|open|HTTParty\.(get|post)|RestClient\.(get|post)|Faraday\.(get|post))$/,
      arg: 0,
    },
    // `only_path: true` keeps only the path of the URL: the redirect stays on this site.
    {
      kind: 'open-redirect',
      // Rails `redirect_to`, Sinatra `redirect`.
      callee: /^(redirect_to|redirect)$/,
      arg: 0,
      unless: /\bonly_path:\s*true\b|:only_path\s*=>\s*true\b/,
    },
  ],
};
