import { cFlow } from '../flow/c';
import type { TaintLanguage } from '../types';

/** C and C++: argv, environment and stdin; system/exec, SQL client libraries, files. */
export const c: TaintLanguage = {
  assignments: [
    { type: 'init_declarator', target: 'declarator', value: 'value' },
    { type: 'assignment_expression', target: 'left', value: 'right' },
  ],
  calls: ['call_expression'],
  flow: cFlow,
  parameterTypes: ['parameter_declaration'],
  safeParameter:
    /^\s*(const\s+)?((unsigned|signed)\s+)?(int|long|short|char|size_t|ssize_t|bool|float|double|u?int\d+_t|off_t|pid_t)(\s+long)?\s+\w+\s*$/,
  sources: [/^argv\b/],
  sourceCalls: [/^(std::)?(getenv|secure_getenv|gets|readline)$/],
  // Reads that fill their buffer argument with input: `fgets(buf, n, stdin)`, `scanf("%s", buf)`, `recv(fd, buf…)`.
  sourceArguments: [
    { callee: /^(fgets|getline|gets_s)$/, into: 0, when: /\bstdin\b/ },
    { callee: /^scanf$/, into: 'all' },
    { callee: /^(recv|recvfrom)$/, into: 1 },
    { callee: /^(std::)?getline$/, into: 1, when: /\b(std::)?cin\b/ },
  ],
  localInput: {
    sourceArguments: [
      // Files and descriptors, not only stdin: `fgets(buf, n, fp)`, `fread(buf…)`, `read(fd, buf…)`.
      { callee: /^(fgets|fread|getline|fscanf)$/, into: 0 },
      { callee: /^fscanf$/, into: 'all' },
      { callee: /^read$/, into: 1 },
      { callee: /^(std::)?getline$/, into: 1 },
    ],
  },
  constructorDeclarations: ['declaration'],
  extractions: [{ type: 'binary_expression', source: /^(std::)?(cin|wcin)\b/ }],
  // Conversions to numbers, and lengths: a count carries none of the text.
  sanitizers: [
    /^(std::)?(atoi|atol|atoll|strtol|strtoul|strtoll|strtod|stoi|stol|stoul|stod|strlen|strnlen|wcslen)$/,
  ],
  kindSanitizers: [{ callee: /^(basename|PathFindFileName)$|\.filename$/, kinds: ['path-traversal'] }],
  propagators: [
    { callee: /^(sprintf|snprintf|strcpy|strncpy|strcat|strncat|memcpy|fgets|read|recv)$/, into: 0 },
  ],
  sinks: [
    { kind: 'format-string', callee: /^(printf|vprintf|wprintf)$/, arg: 0 },
    {
      kind: 'format-string',
      callee: /^(fprintf|dprintf|sprintf|vfprintf|vsprintf|syslog|fwprintf)$/,
      arg: 1,
    },
    { kind: 'format-string', callee: /^(snprintf|vsnprintf)$/, arg: 2 },
    { kind: 'config-setting', callee: /^(putenv|setenv)$/, arg: 'any' },
    // Log forging: a value with a line break written into syslog or an spdlog line forges the entries after it.
    ...[2, 3, 4, 5].map((arg) => ({ kind: 'log-injection' as const, callee: /^syslog$/, arg })),
    {
      kind: 'log-injection',
      callee:
        /^spdlog::(trace|debug|info|warn|error|critical)$|^_?\w*[lL]og(ger)?\w*->(trace|debug|info|warn|error|critical)$/,
      arg: 'any',
    },
    // OpenLDAP: the filter is the fourth argument; libxml2's XPath expression the first.
    { kind: 'ldap-injection', callee: /^ldap_search(_ext)?(_s|_st)?$/, arg: 3 },
    { kind: 'xpath-injection', callee: /^xmlXPath(EvalExpression|Eval|Compile|CtxtCompile)$/, arg: 0 },
    {
      kind: 'command-injection',
      callee: /^(std::|::)?(system|popen|_popen|execl|execlp|execle|execv|execvp|execvpe)$/,
      arg: 0,
    },
    { kind: 'sql-injection', callee: /^(mysql_query|mysql_real_query|sqlite3_exec|PQexec)$/, arg: 1 },
    { kind: 'path-traversal', callee: /^(std::|::)?(fopen|open|freopen|remove|unlink|rename)$/, arg: 0 },
    { kind: 'path-traversal', callee: /^(std::)?(ifstream|ofstream|fstream|wifstream|wofstream)$/, arg: 0 },
    // libcurl: the URL option's value is where the request goes.
    { kind: 'ssrf', callee: /^curl_easy_setopt$/, arg: 2, when: /CURLOPT_URL\b/ },
  ],
};
