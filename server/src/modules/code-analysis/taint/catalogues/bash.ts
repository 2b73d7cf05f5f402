import type { TaintLanguage } from '../types';

/** Bash: positional parameters, CGI variables and `read`; eval, shells, database clients. */
export const bash: TaintLanguage = {
  assignments: [{ type: 'variable_assignment', target: 'name', value: 'value' }],
  calls: ['command'],
  // Positional parameters (the script's or the function's arguments) and CGI request variables.
  sourceNodes: ['simple_expansion', 'expansion'],
  sources: [/^\$\{?([1-9]|@|\*|QUERY_STRING|REQUEST_URI|PATH_INFO|HTTP_[A-Z_]+)\b/],
  sourceCalls: [],
  sourceArguments: [{ callee: /^read$/, into: 'all' }],
  sanitizers: [],
  cleanMembers: [{ types: ['arithmetic_expansion'], pattern: /^/ }],
  sinks: [
    { kind: 'command-injection', callee: /^eval$/, arg: 'any' },
    { kind: 'command-injection', callee: /^(sh|bash|zsh|dash|ksh)$/, arg: 'any', when: /\s-c\s/ },
    {
      kind: 'command-injection',
      callee: /^(xargs|find|sudo|env|nohup|timeout|ssh)$/,
      arg: 'any',
      when: /\s(sh|bash|zsh)\s+-c\s/,
    },
    { kind: 'code-injection', callee: /^(source|\.)$/, arg: 0 },
    { kind: 'sql-injection', callee: /^(mysql|mariadb)$/, arg: 'any', when: /\s(-e|--execute)\b/ },
    { kind: 'sql-injection', callee: /^psql$/, arg: 'any', when: /\s(-c|--command)\b/ },
    { kind: 'sql-injection', callee: /^sqlite3$/, arg: 1 },
  ],
};
