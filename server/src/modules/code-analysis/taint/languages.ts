import type { CodeLanguage } from '@tessera/shared';
import { java } from './catalogues/java';
import { python } from './catalogues/python';
import { c, csharp, go } from './languages-compiled';
import { bash, INPUT_NAMES, kotlin, rust, scala, swift } from './languages-more';
import type { TaintLanguage } from './types';

/**
 * Sources, sinks and sanitizers per language, as data. Callees and paths are matched on the node's text with
 * whitespace removed (`request . args` reads `request.args`).
 */
const javascript: TaintLanguage = {
  assignments: [
    { type: 'variable_declarator', target: 'name', value: 'value' },
    { type: 'assignment_expression', target: 'left', value: 'right' },
    { type: 'augmented_assignment_expression', target: 'left', value: 'right' },
  ],
  calls: ['call_expression', 'new_expression'],
  propertySinks: [{ target: /\.(innerHTML|outerHTML)$/, kind: 'xss' }],
  sources: [
    /^req(uest)?\.(query|body|params|headers|cookies|url|originalUrl)\b/,
    /^process\.(argv|env)\b/,
    /^(window\.)?location\.(search|hash|href)\b/,
    /^document\.(cookie|URL|referrer)\b/,
    /^ctx\.(query|params|request\.body)\b/,
  ],
  sourceCalls: [
    /^req(uest)?\.(get|header|param)$/,
    /^prompt$/,
    /^readline\.question$/,
    /^(fs\.)?readFileSync$/,
    /^URLSearchParams\.get$|searchParams\.get$/,
  ],
  parameterTypes: [
    'identifier',
    'required_parameter',
    'optional_parameter',
    'assignment_pattern',
    'object_pattern',
  ],
  // NestJS binds parameters to the request with decorators.
  parameterSources: [{ name: INPUT_NAMES }, { text: /@(Query|Param|Body|Headers)\(/ }],
  safeParameter: /:\s*(number|boolean)\s*(=.*)?$/,
  sanitizers: [
    /^(parseInt|parseFloat|Number|Boolean|encodeURIComponent|encodeURI|escape|escapeHtml|sanitize\w*|validator\.\w+|DOMPurify\.sanitize|he\.encode|_\.escape|path\.basename|shellescape|shellEscape|mysql\.escape|\w+\.escape)$/,
  ],
  sinks: [
    { kind: 'sql-injection', callee: /\.(query|execute|raw|\$queryRawUnsafe|\$executeRawUnsafe)$/, arg: 0 },
    { kind: 'command-injection', callee: /^((child_process|cp)\.)?(exec|execSync)$/, arg: 0 },
    {
      kind: 'command-injection',
      callee: /^((child_process|cp)\.)?(spawn|spawnSync|execFile)$/,
      arg: 'any',
      when: /shell\s*:\s*true/,
    },
    {
      kind: 'code-injection',
      callee: /^(eval|Function|newFunction|vm\.runIn\w+|setTimeout|setInterval)$/,
      arg: 0,
    },
    { kind: 'xss', callee: /^(res|response)\.(send|write|end)$|^document\.(write|writeln)$/, arg: 0 },
    { kind: 'unsafe-deserialization', callee: /^(serialize\.)?unserialize$|^(yaml|jsyaml)\.load$/, arg: 0 },
    {
      kind: 'path-traversal',
      callee:
        /^(fs\.)?(readFile|readFileSync|createReadStream|writeFile|writeFileSync|unlink|unlinkSync|open|openSync)$|^(res|response)\.(sendFile|download)$|^fs\.promises\.readFile$/,
      arg: 0,
    },
    {
      kind: 'ssrf',
      callee: /^(fetch|axios|axios\.(get|post|put|delete|request)|got|request|https?\.(get|request)|needle)$/,
      arg: 0,
    },
    { kind: 'open-redirect', callee: /^(res|response|ctx)\.redirect$/, arg: 0 },
  ],
};

const php: TaintLanguage = {
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
  ],
  sources: [/^\$_(GET|POST|REQUEST|COOKIE|FILES|SERVER)\b/],
  parameterTypes: ['simple_parameter'],
  parameterSources: [{ name: INPUT_NAMES }],
  safeParameter: /^\s*\??(int|float|bool)\s/,
  sourceCalls: [/^(file_get_contents\('php:\/\/input'\)|getenv|fgets|readline)$/],
  sanitizers: [
    /^(intval|floatval|boolval|htmlspecialchars|htmlentities|strip_tags|escapeshellarg|escapeshellcmd|basename|filter_var|filter_input|mysqli_real_escape_string|addslashes|urlencode|rawurlencode|realpath|\$\w+->quote)$/,
  ],
  sinks: [
    {
      kind: 'sql-injection',
      callee: /^(mysql_query|pg_query|sqlite_query)$|->(query|exec|prepare)$/,
      arg: 0,
    },
    { kind: 'sql-injection', callee: /^mysqli_query$/, arg: 1 },
    {
      kind: 'command-injection',
      callee: /^(system|exec|shell_exec|passthru|popen|proc_open|pcntl_exec)$/,
      arg: 0,
    },
    { kind: 'code-injection', callee: /^(eval|assert|create_function)$/, arg: 0 },
    { kind: 'xss', callee: /^(echo|print)$/, arg: 'any' },
    { kind: 'unsafe-deserialization', callee: /^unserialize$/, arg: 0 },
    {
      kind: 'path-traversal',
      callee: /^(include|require|include_once|require_once|file_get_contents|fopen|readfile|file|unlink)$/,
      arg: 0,
    },
    { kind: 'ssrf', callee: /^curl_init$/, arg: 0 },
    { kind: 'open-redirect', callee: /^header$/, arg: 0, when: /Location/i },
  ],
};

const ruby: TaintLanguage = {
  assignments: [
    { type: 'assignment', target: 'left', value: 'right' },
    { type: 'operator_assignment', target: 'left', value: 'right' },
  ],
  calls: ['call', 'subshell'],
  sources: [
    /^params\b/,
    /^request\.(params|query_string|body|headers|cookies|env)\b/,
    /^cookies\b/,
    /^ENV\b/,
    /^ARGV\b/,
  ],
  sourceCalls: [/^gets$/, /^STDIN\.(read|gets)$|^\$stdin\.(read|gets)$/],
  sanitizers: [
    /\.(to_i|to_f|to_sym)$/,
    /^(Integer|Float)$/,
    /^(sanitize|h|html_escape|ERB::Util\.html_escape|CGI\.escapeHTML|Shellwords\.escape|File\.basename|ActiveRecord::Base\.sanitize_sql|\w+\.connection\.quote)$/,
    /\.shellescape$/,
  ],
  sinks: [
    {
      kind: 'sql-injection',
      callee: /\.(where|find_by_sql|execute|exec_query|select_all|order|joins|having|pluck)$/,
      arg: 0,
      argTypes: /^(string|binary|identifier|call|element_reference)$/,
    },
    // With several arguments system/exec/spawn run the program without a shell: only the first argument matters.
    {
      kind: 'command-injection',
      callee: /^(system|exec|spawn|IO\.popen|Open3\.\w+|Kernel\.system)$/,
      arg: 0,
    },
    { kind: 'command-injection', callee: /^`$/, arg: 'any' },
    { kind: 'code-injection', callee: /^(eval|instance_eval|class_eval|module_eval)$/, arg: 0 },
    { kind: 'xss', callee: /^render$/, arg: 'any', when: /\b(inline|html):/ },
    {
      kind: 'unsafe-deserialization',
      callee: /^(Marshal\.(load|restore)|YAML\.(load|unsafe_load)|Psych\.(load|unsafe_load)|Oj\.load)$/,
      arg: 0,
    },
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
    { kind: 'open-redirect', callee: /^redirect_to$/, arg: 0 },
  ],
};

export const TAINT_LANGUAGES: Partial<Record<CodeLanguage, TaintLanguage>> = {
  python,
  javascript,
  typescript: javascript,
  tsx: javascript,
  java,
  php,
  go,
  ruby,
  csharp,
  c,
  cpp: c,
  kotlin,
  swift,
  scala,
  rust,
  bash,
};
