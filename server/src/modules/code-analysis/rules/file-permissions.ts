import { callText } from './security-crypto';
import { forJs, type RuleDefinition } from './types';

/** Group or others may write: what makes a mode permissive (CWE-732), whether or not anyone may also read. */
const WRITABLE_BY_OTHERS = 0o022;

/** A numeric literal as the language writes it: `0o777`, `0777` (octal), `0x1ff`, `511`. */
function numericMode(token: string, octalByDefault: boolean): number | undefined {
  const t = token.replace(/_/g, '');
  if (/^0[oO][0-7]+$/.test(t)) return Number.parseInt(t.slice(2), 8);
  if (/^0[xX][0-9a-fA-F]+$/.test(t)) return Number.parseInt(t.slice(2), 16);
  if (/^0[bB][01]+$/.test(t)) return Number.parseInt(t.slice(2), 2);
  if (/^0[0-7]+$/.test(t) || (octalByDefault && /^[0-7]{3,4}$/.test(t))) return Number.parseInt(t, 8);
  if (/^[1-9]\d*$/.test(t)) return Number.parseInt(t, 10);
  return undefined;
}

const permissive = (mode: number | undefined): boolean =>
  mode !== undefined && mode <= 0o7777 && (mode & WRITABLE_BY_OTHERS) !== 0;

/**
 * Whether a call's arguments hold a permissive mode: a numeric literal outside the string literals (the flags of
 * `open` are named constants, so the number is the mode), Go's `os.ModePerm` (0777), or a POSIX permission string
 * (`rwxrwxrwx`) writable by group or others.
 */
export function permissiveModeCall(call: string): boolean {
  const args = call.slice(call.indexOf('(') + 1);
  if (/\bos\.ModePerm\b/.test(args)) return true;
  // C++17 `std::filesystem::permissions(p, perms::all)`: named bits, unless they are being removed.
  if (/\bperms::(all|others_all|others_write|group_all|group_write)\b/.test(args))
    return !/\bperm_options::remove\b/.test(args);
  // POSIX's named bits (`stat.S_IRWXO`, `S_IWGRP | S_IWOTH`) granting write to group or others; `~S_IWOTH` clears one.
  if (/\bS_I(WOTH|WGRP|RWXO|RWXG)\b/.test(args) && !args.includes('~')) return true;
  const posix = /"([r-][w-][xsS-][r-]([w-])[xsS-][r-]([w-])[xtT-])"/.exec(args);
  if (posix) return posix[2] === 'w' || posix[3] === 'w';
  const code = args.replace(/(["'])(?:\\.|(?!\1).)*\1/g, '""');
  for (const m of code.matchAll(/(?<![\w.])(0[oOxXbB][0-9a-fA-F_]+|\d+)(?![\w.])/g))
    if (permissive(numericMode(m[1] ?? '', false))) return true;
  return false;
}

/** `chmod 777 f`, `chmod -R 0666 d`, `chmod o+w f`, `chmod a+rwx f`. */
export function permissiveChmodWord(word: string): boolean {
  if (/^[0-7]{3,4}$/.test(word)) return permissive(numericMode(word, true));
  return /^[ugoa]*(a|o|g)[ugoa]*[+=][rwxXst]*w/.test(word) || /^[+=][rwxXst]*w/.test(word);
}

const C_CALLS = callText(
  'call_expression',
  '^(chmod|fchmod|fchmodat|mkdir|mkdirat|open|openat|creat|mkfifo)\\(',
);

/** Files and directories created or changed to be writable by group or others (CWE-732; gosec G301/G302/G306, Bandit B103). */
export const FILE_PERMISSION_RULES: RuleDefinition[] = [
  {
    id: 'security/permissive-file-mode',
    needles: [
      'chmod',
      'mkdir',
      'umask',
      'install',
      'makedirs',
      'open',
      'Mkdir',
      'Chmod',
      'OpenFile',
      'WriteFile',
      'creat',
      'mode',
      'Permissions',
      'permissions',
      'posixPermissions',
    ],
    category: 'security',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-732',
    message:
      '`{finding}` makes a file or directory writable by group or others, who can then change what the program reads or runs; use 0600 for files and 0700 (or 0750) for directories.',
    languages: {
      python: callText(
        'call',
        // pathlib too: `Path(p).chmod(0o777)`, `Path(d).mkdir(mode=0o777)`, `p.touch(mode=0o666)`.
        '^(os\\.(chmod|fchmod|lchmod|mkdir|makedirs|mknod|open)|[\\w.]*(\\([^()]*\\))?\\.(chmod|lchmod|mkdir|touch))\\(',
      ),
      go: callText('call_expression', '^(os|ioutil)\\.(Chmod|Mkdir|MkdirAll|OpenFile|WriteFile)\\('),
      ...forJs(
        callText(
          'call_expression',
          '^([\\w.]*\\.)?(chmod|chmodSync|fchmod|fchmodSync|lchmod|lchmodSync|mkdir|mkdirSync|writeFile|writeFileSync|open|openSync|appendFile|appendFileSync)\\(',
        ),
      ),
      c: C_CALLS,
      cpp: `${C_CALLS}
            ${callText('call_expression', '^((std::)?filesystem::|fs::)?permissions\\(')}`,
      php: callText('function_call_expression', '^(chmod|mkdir|lchmod)\\('),
      ruby: callText(
        'call',
        '^(File|FileUtils|Dir)\\.(chmod|chmod_R|lchmod|mkdir|mkdir_p|makedirs|mkpath|new|open|write)\\b',
      ),
      rust: callText('call_expression', '(from_mode|set_mode|\\.mode)\\(\\s*0o[0-7_]+\\s*\\)$'),
      java: callText(
        'method_invocation',
        '^(java\\.nio\\.file\\.attribute\\.)?PosixFilePermissions\\.fromString\\(',
      ),
      kotlin: callText('call_expression', '^PosixFilePermissions\\.fromString\\('),
      scala: callText('call_expression', '^PosixFilePermissions\\.fromString\\('),
      // `chmod 777`, `mkdir -m 777`/`install -m 777`, and a umask that leaves files writable by others.
      bash: `((command name: (command_name) @n argument: (_) @octal) @finding (#eq? @n "chmod"))
             ((command name: (command_name) @n (word) @flag . [(word) (number)] @octal) @finding (#match? @n "^(mkdir|install)$") (#eq? @flag "-m"))
             ((command name: (command_name) @n argument: [(word) (number)] @umask) @finding (#eq? @n "umask") (#match? @umask "^0*[0-7]?[0-7]?[0145]$"))`,
      // Foundation: `createFile(atPath:contents:attributes: [.posixPermissions: 0o777])`, `setAttributes`.
      swift: `((value_argument name: (value_argument_label) value: (dictionary_literal key: (_) @key value: [(oct_literal) (integer_literal) (hex_literal)] @octal)) @finding
        (#match? @key "posixPermissions$"))`,
    },
    check: (c) => {
      if (c.umask) return true;
      if (c.key) return permissive(numericMode(c.octal?.text ?? '', false));
      return c.octal ? permissiveChmodWord(c.octal.text) : permissiveModeCall(c.finding?.text ?? '');
    },
  },
];
