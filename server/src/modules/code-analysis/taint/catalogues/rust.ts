import { rustFlow } from '../flow/rust';
import type { TaintLanguage } from '../types';
import { namedInput } from './shared';

/** Rust: actix-web, axum, std, sqlx/diesel/rusqlite, reqwest. */
export const rust: TaintLanguage = {
  assignments: [
    { type: 'let_declaration', target: 'pattern', value: 'value' },
    { type: 'assignment_expression', target: 'left', value: 'right' },
    { type: 'compound_assignment_expr', target: 'left', value: 'right', keeps: true },
  ],
  calls: ['call_expression'],
  flow: rustFlow,
  tokenTrees: true,
  sources: [],
  sourceCalls: [
    /^(std::)?env::(args|args_os|var|var_os|vars)$/,
    /^(req|request)\.(query_string|match_info|headers|uri|path|cookie)$/,
  ],
  // `io::stdin().read_line(&mut buf)` fills `buf`.
  sourceArguments: [{ callee: /\.read_line$|\.read_to_string$/, into: 0 }],
  localInput: {
    sourceCalls: [/^(std::)?fs::(read_to_string|read)$|^reqwest::(blocking::)?get$|\.text$|\.lines$/],
    sourceArguments: [{ callee: /\.read$|\.read_exact$|\.read_to_end$/, into: 0 }],
  },
  kindSanitizers: [{ callee: /^(ldap3::)?ldap_escape$/, kinds: ['ldap-injection'] }],
  sanitizers: [
    /\.parse(::<[\w:]+>)?$/,
    /\.file_name$/,
    /^(html_escape::encode_\w+|encode_text|encode_safe|shell_escape::escape|shell_words::quote|urlencoding::encode)$/,
  ],
  sinks: [
    // ldap3: `ldap.search(base, scope, &filter, attrs)`; sxd-xpath: `evaluate_xpath(&doc, &expr)`.
    { kind: 'ldap-injection', callee: /^\w*[lL]dap\w*\.(search|streaming_search)$/, arg: 2 },
    { kind: 'xpath-injection', callee: /^(sxd_xpath::)?evaluate_xpath$/, arg: 1 },
    // bincode 1.x trusts the lengths in the input: untrusted bytes allocate without bound (RUSTSEC-style DoS).
    { kind: 'unsafe-deserialization', callee: /^bincode::deserialize(_from)?$/, arg: 0 },
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
    // Templates compiled from input: Tera, MiniJinja and Handlebars render what the template text asks for.
    {
      kind: 'template-injection',
      callee: /^(tera::)?Tera::one_off$|\.(render_str|render_template)$/,
      arg: 0,
    },
    {
      kind: 'template-injection',
      callee: /\.(add_raw_template|add_template|register_template_string)$/,
      arg: 1,
    },
    { kind: 'xss', callee: /\.body$/, arg: 0, when: /text\/html/ },
    {
      kind: 'path-traversal',
      callee:
        /^((std::)?fs::(read|read_to_string|write|remove_file|remove_dir_all|copy|rename)|((std::)?fs::)?File::(open|create)|(actix_files::)?NamedFile::open)$/,
      arg: 0,
    },
    { kind: 'ssrf', callee: /^(reqwest::(blocking::)?get|ureq::get)$/, arg: 0 },
    { kind: 'open-redirect', callee: /^Redirect::(to|temporary|permanent|see_other)$/, arg: 0 },
    // Log forging (CodeQL rust/log-injection): the log and tracing macros write a line break in a value as it is.
    // Only a Display placeholder (`{}`, `{name}`, `{:>8}`) writes it raw; Debug (`{:?}`) escapes it.
    {
      kind: 'log-injection',
      callee: /^((log|tracing)::)?(info|warn|error|debug|trace|event|log)!$/,
      arg: 0,
      when: /\{[\w.]*(:[^?}]*)?\}/,
    },
  ],
  parameterTypes: ['parameter'],
  // actix-web and axum extractors: the handler's typed parameters are the request's query, path, body, form.
  parameterSources: [namedInput, { text: /:\s*(web::)?(Query|Path|Json|Form)\s*</ }],
  // Rocket binds a route's `<captures>`, query and form fields to the handler's parameters by name.
  handler: { decorator: /#\[(rocket::)?(get|post|put|delete|patch|head|route)\(/ },
  // Application state and the request object (whose members are sources of their own) are not input themselves.
  safeParameter:
    /:\s*&?\s*((web|actix_web|rocket|axum::extract)::)?(Data|State|HttpRequest|Extension)\b|<\s*(i8|i16|i32|i64|i128|isize|u8|u16|u32|u64|u128|usize|bool|f32|f64|Uuid)\s*>|:\s*&?(i8|i16|i32|i64|i128|isize|u8|u16|u32|u64|u128|usize|bool|f32|f64)\s*$/,
};
