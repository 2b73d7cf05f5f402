import type { RuleDefinition } from './types';

/**
 * Running a script straight from the network (CWE-494, the Semgrep registry's `curl-pipe-bash`): `curl … | sh`,
 * `bash <(curl …)`, `sh -c "$(curl …)"`, `eval "$(wget -O- …)"`. Nothing checks what arrived: a compromised or
 * intercepted download runs as the script's user. Downloading to a file and checking a checksum or signature first
 * is not reported.
 */
const FETCH = '^(curl|wget)$';
// The interpreter by name or path (`/bin/bash`), run directly or through `sudo`/`doas` (`curl … | sudo bash`).
const SHELL = '^(.*/)?(sh|bash|zsh|ksh|dash|ash|fish|python3?|perl|ruby|node|eval|source|\\.)$';
const ELEVATE = '^(.*/)?(sudo|doas)$';

export const DOWNLOAD_EXEC_RULES: RuleDefinition[] = [
  {
    id: 'security/download-without-integrity-check',
    needles: ['curl', 'wget'],
    category: 'security',
    severity: 'high',
    confidence: 'high',
    cwe: 'CWE-494',
    message:
      '`{finding}` runs a script downloaded from the network without checking it; download it to a file, verify its checksum or signature, then run it.',
    languages: {
      bash: `((pipeline (command name: (command_name) @dl) . (command name: (command_name) @sh)) @finding (#match? @dl "${FETCH}") (#match? @sh "${SHELL}"))
        ((command name: (command_name) @sh argument: (process_substitution (command name: (command_name) @dl))) @finding (#match? @dl "${FETCH}") (#match? @sh "${SHELL}"))
        ((command name: (command_name) @sh argument: (string (command_substitution (command name: (command_name) @dl)))) @finding (#match? @dl "${FETCH}") (#match? @sh "${SHELL}"))
        ((command name: (command_name) @sh argument: (command_substitution (command name: (command_name) @dl))) @finding (#match? @dl "${FETCH}") (#match? @sh "${SHELL}"))
        ((pipeline (command name: (command_name) @dl) . (command name: (command_name) @su argument: (word) @sh)) @finding (#match? @dl "${FETCH}") (#match? @su "${ELEVATE}") (#match? @sh "${SHELL}"))
        ((command name: (command_name) @su argument: (word) @sh argument: [(process_substitution (command name: (command_name) @dl))
                                                                           (command_substitution (command name: (command_name) @dl))
                                                                           (string (command_substitution (command name: (command_name) @dl)))]) @finding
          (#match? @dl "${FETCH}") (#match? @su "${ELEVATE}") (#match? @sh "${SHELL}"))`,
    },
  },
  {
    // Semgrep's curl-eval (CWE-95): text fetched with curl/wget, kept in a variable or not, given to `eval`.
    id: 'security/eval-of-download',
    needles: ['curl', 'wget'],
    category: 'security',
    severity: 'high',
    confidence: 'high',
    cwe: 'CWE-95',
    message:
      '`{finding}` evaluates text downloaded from the network as shell code: whoever controls or intercepts the server runs commands here; download data, not code, and parse it.',
    languages: {
      bash: `${['program', 'compound_statement']
        .map(
          (scope) => `(${scope}
            (variable_assignment name: (variable_name) @v value: [(command_substitution (command name: (command_name) @dl))
                                                                  (string (command_substitution (command name: (command_name) @dl)))])
            (command name: (command_name) @ev argument: (_) @arg) @finding
            (#match? @dl "${FETCH}") (#eq? @ev "eval"))`,
        )
        .join('\n')}
        ((command name: (command_name) @ev argument: [(command_substitution (command name: (command_name) @dl))
                                                     (string (command_substitution (command name: (command_name) @dl)))]) @finding
          (#match? @dl "${FETCH}") (#eq? @ev "eval"))`,
    },
    check: (c) => !c.v || new RegExp(`\\$\\{?${c.v.text}\\b`).test(c.arg?.text ?? ''),
  },
];
