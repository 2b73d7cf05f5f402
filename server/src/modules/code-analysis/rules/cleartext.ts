import { cleartextRequest } from './cleartext-urls';
import { callText } from './security-crypto';
import { forJs, type RuleDefinition } from './types';

/**
 * Requests sent in clear (CWE-319): an HTTP, WebSocket or FTP client called with a literal `http://`, `ws://` or
 * `ftp://` URL, and clients of protocols that have no encryption at all (FTP, Telnet, SMTP without STARTTLS, plain
 * sockets), as Semgrep's insecure-transport rules, Bandit (B321, B401) and FindSecBugs (UNENCRYPTED_SOCKET) report
 * them.
 */
const URL_ARG = `"^[A-Za-z@$]{0,2}[\\"'\`]+([Hh][Tt][Tt][Pp]|[Ww][Ss]|[Ff][Tt][Pp])://"`;
/** `args` holds the argument captured as `@url`. */
const call = (node: string, fn: string, args: string) =>
  `((${node} ${fn} @fn ${args}) @finding (#match? @url ${URL_ARG}))`;

const C_CALL = call('call_expression', 'function: (_)', 'arguments: (argument_list (_) @url)');

export const CLEARTEXT_RULES: RuleDefinition[] = [
  {
    id: 'security/cleartext-request',
    needles: ['http://', 'ws://', 'ftp://', 'HTTP://'],
    category: 'security',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-319',
    message:
      '`{finding}` sends the request in clear ({url}): anyone on the path can read and change it; use https:// (wss://, SFTP/FTPS).',
    languages: {
      python: `${call('call', 'function: (_)', 'arguments: (argument_list (_) @url)')}
               ${call('call', 'function: (_)', 'arguments: (argument_list (keyword_argument value: (_) @url))')}`,
      ...forJs(`${call('call_expression', 'function: (_)', 'arguments: (arguments (_) @url)')}
                ${call('new_expression', 'constructor: (_)', 'arguments: (arguments (_) @url)')}
                ${call('call_expression', 'function: (_)', 'arguments: (arguments (object (pair key: (property_identifier) @k value: (_) @url)))')}`),
      java: `${call('method_invocation', 'name: (identifier)', 'arguments: (argument_list (_) @url)')}
             ${call('object_creation_expression', 'type: (_)', 'arguments: (argument_list (_) @url)')}`,
      kotlin: call('call_expression', '(_)', '(call_suffix (value_arguments (value_argument (_) @url)))'),
      scala: `${call('call_expression', 'function: (_)', 'arguments: (arguments (_) @url)')}
              ${call('instance_expression', '(_)', 'arguments: (arguments (_) @url)')}`,
      go: C_CALL,
      c: C_CALL,
      cpp: C_CALL,
      rust: call('call_expression', 'function: (_)', 'arguments: (arguments (_) @url)'),
      csharp: `${call('invocation_expression', 'function: (_)', 'arguments: (argument_list (argument (_) @url))')}
               ${call('object_creation_expression', 'type: (_)', 'arguments: (argument_list (argument (_) @url))')}`,
      ruby: call('call', 'method: (_)', 'arguments: (argument_list (_) @url)'),
      php: `${call('function_call_expression', 'function: (_)', 'arguments: (arguments (argument (_) @url))')}
            ${call('member_call_expression', 'name: (_)', 'arguments: (arguments (argument (_) @url))')}
            ${call('scoped_call_expression', 'name: (_)', 'arguments: (arguments (argument (_) @url))')}`,
      swift: call(
        'call_expression',
        '(_)',
        '(call_suffix (value_arguments (value_argument value: (_) @url)))',
      ),
      bash: `((command name: (command_name) @fn argument: [(word) (string) (raw_string)] @url) @finding
               (#match? @fn "^(curl|wget)$") (#match? @url "^[\\"']?([Hh][Tt][Tt][Pp]|[Ff][Tt][Pp])://"))`,
    },
    check: (c) => {
      const fn = c.fn?.text ?? '';
      const url = c.url?.text ?? '';
      if (c.k && !/^(url|uri|baseURL|baseUrl|host|endpoint)$/.test(c.k.text)) return false;
      if (c.fn?.type === 'command_name')
        return cleartextRequest('wget', /^["']/.test(url) ? url : `"${url}"`);
      return cleartextRequest(fn, url);
    },
  },
  {
    id: 'security/cleartext-protocol',
    needles: [
      'FTP',
      'Telnet',
      'SMTP',
      'POP3',
      'IMAP4',
      'NNTP',
      'HTTPConnection',
      'Socket',
      'ftp_connect',
      'EnableSsl',
      'telnet',
      'ftp',
      'createServer',
    ],
    // An SMTP client that upgrades the connection, or a file that turns TLS on, is not in clear.
    unlessByLanguage: { python: ['starttls', 'SMTP_SSL'], ruby: ['enable_starttls', 'enable_tls'] },
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-319',
    message:
      '`{finding}` opens a connection with no encryption (FTP, Telnet, SMTP without STARTTLS, a plain socket): credentials and data travel in clear; use SFTP/FTPS, SSH, SMTP with STARTTLS or TLS sockets.',
    languages: {
      python: callText(
        'call',
        '^(ftplib\\.)?FTP\\(|^(telnetlib\\.)?Telnet\\(|^(smtplib\\.)?SMTP\\(|^(poplib\\.)?POP3\\(|^(imaplib\\.)?IMAP4\\(|^(nntplib\\.)?NNTP\\(|^(http\\.client\\.|httplib\\.)?HTTPConnection\\(\\s*(?![\'"](localhost|127\\.))',
      ),
      // `ServerSocket(0)` binds an ephemeral port: the free-port idiom of tests and launchers, which serve nothing.
      java: callText(
        'object_creation_expression',
        '^new\\s+([\\w.]+\\.)?(FTPClient|TelnetClient|SMTPClient|POP3Client|IMAPClient|Socket|ServerSocket)\\((?!\\s*0\\s*\\))',
      ),
      kotlin: callText(
        'call_expression',
        '^([\\w.]+\\.)?(FTPClient|TelnetClient|SMTPClient|Socket|ServerSocket)\\((?!\\s*0\\s*\\))',
      ),
      scala: callText(
        'instance_expression',
        '^new\\s+([\\w.]+\\.)?(FTPClient|TelnetClient|SMTPClient|Socket|ServerSocket)\\b(?!\\(\\s*0\\s*\\))',
      ),
      go: callText('call_expression', '^(ftp\\.(Dial|DialTimeout|Connect)|telnet\\.(Dial|DialTo))\\('),
      php: callText('function_call_expression', '^ftp_connect\\('),
      ruby: callText('call', '^(Net::FTP\\.(new|open)|Net::Telnet(::|\\.)new|Net::SMTP\\.(new|start))\\b'),
      csharp: `((assignment_expression left: (_) @l right: (boolean_literal) @v) @finding (#match? @l "EnableSsl$") (#eq? @v "false"))`,
      // Semgrep's using-http-server: Node's plain `http.createServer` serves the application without TLS.
      ...forJs(`${callText('call_expression', '^require\\(\\s*[\'"](ftp|telnet-client|telnet)[\'"]\\s*\\)$')}
                ${callText('call_expression', '^http\\.createServer\\(')}`),
    },
  },
  {
    // Semgrep's force-ssl-false (CWE-311): Rails told not to redirect to HTTPS nor mark cookies secure.
    id: 'security/https-not-enforced',
    needles: ['force_ssl'],
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-311',
    message:
      '`{finding}` lets the application serve pages and send its session cookie over plain HTTP; set `config.force_ssl = true` in production.',
    languages: {
      ruby: `((assignment left: (call method: (identifier) @m) right: (false)) @finding (#eq? @m "force_ssl"))`,
    },
  },
];
