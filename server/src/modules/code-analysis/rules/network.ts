import { callText } from './security-crypto';
import { forJs, type RuleDefinition } from './types';

/** Protocol versions broken or deprecated by RFC 8996 and RFC 7568: SSL 2/3, TLS 1.0 and 1.1. */
const OLD_PYTHON =
  '^(PROTOCOL_(SSLv2|SSLv3|SSLv23|TLSv1|TLSv1_1)|(SSLv2|SSLv3|SSLv23|TLSv1|TLSv1_1)_METHOD)$';

/** Listening on every interface (`0.0.0.0`, `::`, or a host left empty as Go's `":8080"`). */
const ALL_INTERFACES = JSON.stringify('^["\'\\x60](0\\.0\\.0\\.0|::|\\[::\\])?(:\\d*)?["\'\\x60]$');
const ANY_ADDRESS = JSON.stringify('^["\'\\x60](0\\.0\\.0\\.0|::)["\'\\x60]$');

export const NETWORK_RULES: RuleDefinition[] = [
  {
    id: 'security/insecure-tls-version',
    needles: ['SSL', 'TLS', 'Tls', 'Ssl', 'tls'],
    category: 'security',
    severity: 'high',
    confidence: 'high',
    cwe: 'CWE-327',
    message:
      '`{finding}` allows SSL 2/3 or TLS 1.0/1.1, whose known attacks (POODLE, BEAST) RFC 8996 deprecated them for; require TLS 1.2 or later.',
    languages: {
      python: `((attribute object: (_) attribute: (identifier) @v) @finding (#match? @v "${OLD_PYTHON}"))
               ((attribute object: (attribute attribute: (identifier) @t) attribute: (identifier) @v) @finding
                 (#eq? @t "TLSVersion") (#match? @v "^(SSLv3|TLSv1|TLSv1_1)$"))`,
      go: `((selector_expression operand: (identifier) @p field: (field_identifier) @v) @finding
             (#eq? @p "tls") (#match? @v "^Version(SSL30|TLS10|TLS11)$"))`,
      java: callText(
        'method_invocation',
        '^(javax\\.net\\.ssl\\.)?SSLContext\\.getInstance\\(\\s*"(SSL|SSLv2|SSLv3|TLSv1|TLSv1\\.1)"',
      ),
      kotlin: callText(
        'call_expression',
        '^SSLContext\\.getInstance\\(\\s*"(SSL|SSLv2|SSLv3|TLSv1|TLSv1\\.1)"',
      ),
      scala: callText(
        'call_expression',
        '^SSLContext\\.getInstance\\(\\s*"(SSL|SSLv2|SSLv3|TLSv1|TLSv1\\.1)"',
      ),
      ...forJs(`((pair key: (property_identifier) @k value: (string) @v) @finding
                  (#match? @k "^(secureProtocol|minVersion|maxVersion)$")
                  (#match? @v "^.(SSLv2|SSLv3|TLSv1|TLSv1_1|TLSv1\\\\.1)(_method|_client_method|_server_method)?.$"))`),
      csharp: `((member_access_expression expression: (identifier) @t name: (identifier) @v) @finding
                 (#match? @t "^(SslProtocols|SecurityProtocolType)$") (#match? @v "^(Ssl2|Ssl3|Tls|Tls11)$"))`,
      ...Object.fromEntries(
        ['c', 'cpp'].map((lang) => [
          lang,
          `((call_expression function: (identifier) @fn) @finding (#match? @fn "^(SSLv2|SSLv3|TLSv1|TLSv1_1)_(client_|server_)?method$"))
           ((call_expression function: (identifier) @fn arguments: (argument_list (_) . (identifier) @v)) @finding
             (#match? @fn "^SSL(_CTX)?_set_min_proto_version$") (#match? @v "^(SSL3|TLS1|TLS1_1)_VERSION$"))`,
        ]),
      ),
      ruby: `((simple_symbol) @finding (#match? @finding "^:(SSLv2|SSLv3|TLSv1|TLSv1_1)$"))
             ((scope_resolution name: (constant) @c) @finding (#match? @c "^(SSL2|SSL3|TLS1|TLS1_1)_VERSION$"))`,
      php: `((name) @finding (#match? @finding "^(STREAM_CRYPTO_METHOD_(SSLv2|SSLv3|TLSv1_0|TLSv1_1)_(CLIENT|SERVER)|CURL_SSLVERSION_(SSLv2|SSLv3|TLSv1_0|TLSv1_1))$"))`,
      rust: `((scoped_identifier) @finding (#match? @finding "^(openssl::ssl::)?SslVersion::(SSL3|TLS1|TLS1_1)$"))`,
    },
  },
  {
    id: 'security/weak-tls-cipher',
    needles: ['TLS_', 'SSL_'],
    category: 'security',
    severity: 'high',
    confidence: 'high',
    cwe: 'CWE-327',
    message:
      '`{finding}` is a TLS cipher suite with a broken cipher or no forward secrecy (RC4, 3DES, NULL, export, anonymous, CBC with SHA-256 MACs, RSA key exchange); keep to the AEAD suites (AES-GCM, ChaCha20-Poly1305).',
    languages: {
      go: `((selector_expression operand: (identifier) @p field: (field_identifier) @v) @finding
             (#eq? @p "tls") (#match? @v "^(TLS_\\\\w*(RC4|3DES|NULL|EXPORT|anon|_CBC_SHA256)\\\\w*|TLS_RSA_WITH_\\\\w+)$"))`,
      java: `((string_literal) @finding (#match? @finding "^\\"(SSL|TLS)_\\\\w*(RC4|3DES|DES40|NULL|EXPORT|anon)\\\\w*\\"$"))`,
    },
  },
  {
    id: 'security/bind-all-interfaces',
    needles: ['0.0.0.0', '::', 'Listen', 'listen', 'bind', 'IPAddress.Any', 'INADDR_ANY'],
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-200',
    message:
      '`{finding}` listens on every network interface, exposing the service to any network the host is on; bind to 127.0.0.1 or to the one interface that should serve it.',
    languages: {
      python: `((call arguments: (argument_list [(string) @finding (tuple . (string) @finding)])) (#match? @finding ${ANY_ADDRESS}))
               ((keyword_argument name: (identifier) @k value: (string) @finding) (#match? @k "^(host|bind|listen|address)$") (#match? @finding ${ANY_ADDRESS}))`,
      go: `((call_expression function: (selector_expression operand: (identifier) @p field: (field_identifier) @fn)
              arguments: (argument_list (_) . (interpreted_string_literal) @finding))
             (#match? @p "^(net|tls)$") (#match? @fn "^(Listen|ListenPacket)$") (#match? @finding ${ALL_INTERFACES}))`,
      ...forJs(`((call_expression function: (member_expression property: (property_identifier) @fn) arguments: (arguments (string) @finding))
                  (#eq? @fn "listen") (#match? @finding ${ANY_ADDRESS}))
                ((pair key: (property_identifier) @k value: (string) @finding) (#match? @k "^(host|hostname)$") (#match? @finding ${ANY_ADDRESS}))`),
      java: `((object_creation_expression type: (type_identifier) @t arguments: (argument_list . (string_literal) @finding))
               (#eq? @t "InetSocketAddress") (#match? @finding ${ANY_ADDRESS}))`,
      csharp: `((member_access_expression expression: (identifier) @t name: (identifier) @v) @finding
                 (#eq? @t "IPAddress") (#match? @v "^(Any|IPv6Any)$"))`,
      ruby: `((call receiver: (constant) @c arguments: (argument_list . (string) @finding)) (#match? @c "^(TCPServer|UDPSocket)$") (#match? @finding ${ANY_ADDRESS}))
             ((call method: (identifier) @m arguments: (argument_list (simple_symbol) @s . (string) @finding)) (#eq? @m "set") (#eq? @s ":bind") (#match? @finding ${ANY_ADDRESS}))`,
      php: `((function_call_expression function: (name) @fn arguments: (arguments (argument (string) @finding)))
              (#eq? @fn "socket_bind") (#match? @finding ${ANY_ADDRESS}))`,
      rust: `((call_expression function: (_) @fn arguments: (arguments . [(string_literal) @finding (tuple_expression . (string_literal) @finding)]))
               (#match? @fn "(TcpListener::bind|UdpSocket::bind|\\\\.bind)$") (#match? @finding "^\\"(0\\\\.0\\\\.0\\\\.0|\\\\[::\\\\])(:\\\\d*)?\\"$"))`,
    },
  },
  {
    id: 'security/request-without-timeout',
    needles: ['requests', 'httpx'],
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-400',
    message:
      '`{finding}` has no timeout (or `timeout=None`): a server that never answers holds the caller forever; pass `timeout=` seconds.',
    languages: {
      python: `((call function: (attribute object: (identifier) @m attribute: (identifier) @fn) arguments: (argument_list) @args) @finding
                 (#match? @m "^(requests|httpx)$") (#match? @fn "^(get|post|put|delete|patch|options|head|request|stream|Client|AsyncClient)$"))`,
    },
    // requests waits forever unless told; httpx has a 5-second default, lost only by an explicit `timeout=None`.
    check: (c) => {
      const args = c.args?.text ?? '';
      if (/\btimeout\s*=\s*None\b/.test(args)) return true;
      return c.m?.text === 'requests' && !/\btimeout\s*=/.test(args) && !/Client$/.test(c.fn?.text ?? '');
    },
  },
  {
    id: 'security/http-server-without-timeouts',
    needles: ['ListenAndServe', 'http.Serve', 'http.Server'],
    // Timeouts set on the server after it is built (`srv.ReadHeaderTimeout = …`) are not followed: no finding then.
    unlessByLanguage: { go: ['ReadHeaderTimeout =', 'ReadTimeout ='] },
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-400',
    message:
      '`{finding}` serves HTTP without a read (header) timeout, so slow clients (Slowloris) can hold every connection; use an http.Server with ReadHeaderTimeout (and ReadTimeout, WriteTimeout).',
    languages: {
      go: `${callText('call_expression', '^http\\.(ListenAndServe|ListenAndServeTLS|Serve|ServeTLS)\\(')}
           ${callText('composite_literal', '^http\\.Server\\s*\\{')}`,
    },
    check: (c) => !/\b(ReadHeaderTimeout|ReadTimeout)\s*:/.test(c.finding?.text ?? ''),
  },
  {
    // The modules themselves, as Bandit (B401, B402) and gosec read them; their calls and the other languages'
    // clients are security/cleartext-protocol's (cleartext.ts).
    id: 'security/cleartext-protocol-module',
    needles: ['telnet', 'ftp'],
    unlessByLanguage: { python: ['FTP_TLS'] },
    category: 'security',
    severity: 'high',
    confidence: 'medium',
    cwe: 'CWE-319',
    message:
      '`{finding}` is a Telnet or FTP client, which sends credentials and data in cleartext; use SSH/SFTP or FTPS (`FTP_TLS`).',
    languages: {
      python: `((import_statement name: (dotted_name) @finding) (#match? @finding "^(telnetlib|ftplib)$"))
               ((import_from_statement module_name: (dotted_name) @finding) (#match? @finding "^(telnetlib|ftplib)$"))`,
      go: `((import_spec path: (interpreted_string_literal) @finding) (#match? @finding "^\\"github\\\\.com/jlaffaye/ftp\\"$"))`,
    },
  },
  {
    id: 'security/ssh-host-key-unchecked',
    needles: [
      'AutoAddPolicy',
      'WarningPolicy',
      'InsecureIgnoreHostKey',
      'StrictHostKeyChecking',
      'verify_host_key',
    ],
    category: 'security',
    severity: 'high',
    confidence: 'high',
    cwe: 'CWE-295',
    message:
      "`{finding}` accepts any SSH host key, so a man in the middle can impersonate the server; check the server's key against known_hosts.",
    languages: {
      python: `((call function: (attribute attribute: (identifier) @fn) arguments: (argument_list . [(call function: (_) @p) (_) @p])) @finding
                 (#eq? @fn "set_missing_host_key_policy") (#match? @p "(AutoAddPolicy|WarningPolicy)$"))`,
      go: `((call_expression function: (selector_expression operand: (identifier) @p field: (field_identifier) @fn)) @finding
             (#eq? @p "ssh") (#eq? @fn "InsecureIgnoreHostKey"))`,
      java: callText(
        'method_invocation',
        '\\.(put|setConfig)\\(\\s*"StrictHostKeyChecking"\\s*,\\s*"no"\\s*\\)$',
      ),
      ruby: `((pair key: (hash_key_symbol) @k value: [(simple_symbol) (false)] @v) @finding (#match? @k "^(verify_host_key|paranoid)$") (#match? @v "^(:never|false)$"))`,
      bash: `((command name: (command_name) @n argument: (_) @a) @finding (#match? @n "^(ssh|scp|sftp)$") (#match? @a "StrictHostKeyChecking=no"))`,
    },
  },
  {
    // gosec G108, Semgrep's go pprof-debug-exposure: importing net/http/pprof registers /debug/pprof/ on the default
    // mux, so a server on http.DefaultServeMux hands out heap dumps, goroutine stacks and the command line.
    id: 'security/profiling-endpoint-exposed',
    needlesByLanguage: { go: ['"net/http/pprof"'] },
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-200',
    message:
      '`{finding}` registers /debug/pprof/ on the default HTTP mux, exposing memory, stacks and the command line to anyone who can reach the server; serve pprof on a separate, private listener.',
    languages: {
      go: `((import_spec name: (blank_identifier) path: (interpreted_string_literal) @p) @finding (#eq? @p "\\"net/http/pprof\\""))`,
    },
  },
  {
    // gosec G123: crypto/tls skips VerifyPeerCertificate on a resumed session, so a custom check there is bypassed
    // by resumption unless VerifyConnection (which runs on every handshake) does it or session tickets are off.
    // Either setting anywhere in the file keeps the rule quiet: it cannot tell which config it belongs to.
    id: 'security/tls-resumption-skips-verification',
    needles: ['VerifyPeerCertificate'],
    unlessByLanguage: {
      go: ['VerifyConnection', 'SessionTicketsDisabled = true', 'SessionTicketsDisabled: true'],
    },
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-295',
    message:
      '`VerifyPeerCertificate` does not run when a TLS session is resumed, so the check it makes can be skipped; do it in VerifyConnection, which runs on every handshake, or set SessionTicketsDisabled.',
    languages: {
      go: `((keyed_element (literal_element (identifier) @k)) @finding (#eq? @k "VerifyPeerCertificate"))
           ((assignment_statement left: (expression_list (selector_expression field: (field_identifier) @k))) @finding (#eq? @k "VerifyPeerCertificate"))`,
    },
  },
];
