/**
 * Security rules on configuration and risky APIs (file modes, TLS versions and suites, listening addresses, timeouts,
 * cleartext protocols, SSH host keys, key sizes, hard-coded IVs, temp files and paths, deserialisers, template escaping): each vulnerable
 * example fires its rule, each safe one does not, at min_confidence low (audit rules included).
 */
import type { CodeLanguage } from '@tessera/shared';
import { describe, expect, it } from 'vitest';
import { analyzeSource } from '../../src/modules/code-analysis/analyze';
import { DEFAULT_THRESHOLDS } from '../../src/modules/code-analysis/types';
import type { RuleCase } from '../helpers/code-analysis';

async function ruleIdsAtLow(code: string, language: CodeLanguage): Promise<string[]> {
  const r = await analyzeSource({
    code,
    language,
    filename: undefined,
    analysisType: 'security',
    thresholds: DEFAULT_THRESHOLDS,
    minConfidence: 'low',
  });
  expect(r.parse_errors, `${language} fixture should parse:\n${code}`).toEqual([]);
  return r.issues.map((i) => i.rule_id);
}

const MODE = 'security/permissive-file-mode';
const TLS = 'security/insecure-tls-version';
const BIND = 'security/bind-all-interfaces';
const KEY = 'security/weak-key-size';

const CASES: RuleCase[] = [
  [
    MODE,
    'python',
    "import os\nos.chmod('/etc/app.conf', 0o777)\n",
    "import os\nos.chmod('/etc/app.conf', 0o600)\n",
  ],
  [MODE, 'python', 'import os\nos.makedirs(path, 0o770)\n', 'import os\nos.makedirs(path, 0o700)\n'],
  [
    MODE,
    'go',
    'package m\nimport "os"\nfunc f() { os.WriteFile("/etc/app.conf", data, 0666) }\n',
    'package m\nimport "os"\nfunc f() { os.WriteFile("/etc/app.conf", data, 0600) }\n',
  ],
  [
    MODE,
    'go',
    'package m\nimport "os"\nfunc f() { os.MkdirAll("/var/app", os.ModePerm) }\n',
    'package m\nimport "os"\nfunc f() { os.MkdirAll("/var/app", 0750) }\n',
  ],
  [MODE, 'javascript', "fs.chmodSync('/srv/app.sock', 0o777);", "fs.chmodSync('/srv/app.sock', 0o600);"],
  [
    MODE,
    'javascript',
    'fs.writeFileSync(p, data, { mode: 0o666 });',
    'fs.writeFileSync(p, data, { mode: 0o600 });',
  ],
  [MODE, 'c', 'void f(void) { chmod("/tmp/x", 0777); }', 'void f(void) { chmod("/tmp/x", 0600); }'],
  [MODE, 'php', '<?php chmod($file, 0777);', '<?php chmod($file, 0640);'],
  [MODE, 'ruby', "File.chmod(0666, 'app.log')\n", "File.chmod(0600, 'app.log')\n"],
  [MODE, 'bash', 'chmod 777 /srv/data\n', 'chmod 750 /srv/data\n'],
  [MODE, 'bash', 'chmod -R o+w /srv/data\n', 'chmod -R u+w /srv/data\n'],
  [
    MODE,
    'rust',
    'fn f() { let p = std::fs::Permissions::from_mode(0o777); }',
    'fn f() { let p = std::fs::Permissions::from_mode(0o600); }',
  ],
  [
    MODE,
    'java',
    'class A { void f() throws Exception { Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxrwxrwx")); } }',
    'class A { void f() throws Exception { Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-r-----")); } }',
  ],
  [
    TLS,
    'python',
    'import ssl\nctx = ssl.SSLContext(ssl.PROTOCOL_TLSv1)\n',
    'import ssl\nctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)\n',
  ],
  [
    TLS,
    'python',
    'import ssl\nctx.minimum_version = ssl.TLSVersion.TLSv1_1\n',
    'import ssl\nctx.minimum_version = ssl.TLSVersion.TLSv1_2\n',
  ],
  [
    TLS,
    'go',
    'package m\nimport "crypto/tls"\nvar c = &tls.Config{MinVersion: tls.VersionTLS10}\n',
    'package m\nimport "crypto/tls"\nvar c = &tls.Config{MinVersion: tls.VersionTLS12}\n',
  ],
  [
    TLS,
    'java',
    'class A { void f() throws Exception { SSLContext c = SSLContext.getInstance("TLSv1"); } }',
    'class A { void f() throws Exception { SSLContext c = SSLContext.getInstance("TLSv1.3"); } }',
  ],
  [
    TLS,
    'javascript',
    "const s = tls.connect({ host, port, secureProtocol: 'TLSv1_method' });",
    "const s = tls.connect({ host, port, minVersion: 'TLSv1.2' });",
  ],
  [
    TLS,
    'csharp',
    'class A { void F() { ServicePointManager.SecurityProtocol = SecurityProtocolType.Tls; } }',
    'class A { void F() { ServicePointManager.SecurityProtocol = SecurityProtocolType.Tls12; } }',
  ],
  [
    TLS,
    'c',
    'void f(void) { SSL_CTX *ctx = SSL_CTX_new(TLSv1_method()); }',
    'void f(void) { SSL_CTX *ctx = SSL_CTX_new(TLS_method()); }',
  ],
  [
    'security/weak-tls-cipher',
    'go',
    'package m\nimport "crypto/tls"\nvar c = &tls.Config{CipherSuites: []uint16{tls.TLS_RSA_WITH_RC4_128_SHA}}\n',
    'package m\nimport "crypto/tls"\nvar c = &tls.Config{CipherSuites: []uint16{tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256}}\n',
  ],
  [
    'security/template-escape-bypass',
    'go',
    'package m\nimport "html/template"\nfunc f(bio string) template.HTML { return template.HTML(bio) }\n',
    'package m\nimport "html/template"\nfunc f() template.HTML { return template.HTML("<b>fixed</b>") }\n',
  ],
  [
    'security/weak-tls-cipher',
    'go',
    'package m\nimport "crypto/tls"\nvar c = &tls.Config{CipherSuites: []uint16{tls.TLS_RSA_WITH_AES_128_GCM_SHA256}}\n',
    'package m\nimport "crypto/tls"\nvar c = &tls.Config{CipherSuites: []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256}}\n',
  ],
  [
    BIND,
    'python',
    "import socket\ns.bind(('0.0.0.0', 8080))\n",
    "import socket\ns.bind(('127.0.0.1', 8080))\n",
  ],
  [BIND, 'python', "app.run(host='0.0.0.0')\n", "app.run(host='127.0.0.1')\n"],
  [
    BIND,
    'go',
    'package m\nimport "net"\nfunc f() { l, _ := net.Listen("tcp", ":2000"); _ = l }\n',
    'package m\nimport "net"\nfunc f() { l, _ := net.Listen("tcp", "127.0.0.1:2000"); _ = l }\n',
  ],
  [BIND, 'javascript', "server.listen(3000, '0.0.0.0');", "server.listen(3000, '127.0.0.1');"],
  [
    BIND,
    'java',
    'class A { void f() { InetSocketAddress a = new InetSocketAddress("0.0.0.0", 80); } }',
    'class A { void f() { InetSocketAddress a = new InetSocketAddress("127.0.0.1", 80); } }',
  ],
  [
    BIND,
    'csharp',
    'class A { void F() { var l = new TcpListener(IPAddress.Any, 80); } }',
    'class A { void F() { var l = new TcpListener(IPAddress.Loopback, 80); } }',
  ],
  [
    BIND,
    'rust',
    'fn f() { let l = TcpListener::bind("0.0.0.0:8080"); }',
    'fn f() { let l = TcpListener::bind("127.0.0.1:8080"); }',
  ],
  [
    'security/request-without-timeout',
    'python',
    'import requests\nr = requests.get(url)\n',
    'import requests\nr = requests.get(url, timeout=10)\n',
  ],
  [
    'security/request-without-timeout',
    'python',
    'import httpx\nc = httpx.Client(timeout=None)\n',
    'import httpx\nc = httpx.Client()\n',
  ],
  [
    'security/cleartext-protocol-module',
    'python',
    "import ftplib\nftp = ftplib.FTP('files.example.com')\n",
    "import ftplib\nftp = ftplib.FTP_TLS('files.example.com')\nftp.prot_p()\n",
  ],
  [
    'security/cleartext-protocol',
    'java',
    'class A { void f() { FTPClient c = new FTPClient(); } }',
    'class A { void f() { FTPSClient c = new FTPSClient(); } }',
  ],
  [
    'security/ssh-host-key-unchecked',
    'python',
    'import paramiko\nclient.set_missing_host_key_policy(paramiko.AutoAddPolicy())\n',
    'import paramiko\nclient.set_missing_host_key_policy(paramiko.RejectPolicy())\n',
  ],
  [
    'security/ssh-host-key-unchecked',
    'go',
    'package m\nimport "golang.org/x/crypto/ssh"\nvar c = &ssh.ClientConfig{HostKeyCallback: ssh.InsecureIgnoreHostKey()}\n',
    'package m\nimport "golang.org/x/crypto/ssh"\nvar c = &ssh.ClientConfig{HostKeyCallback: ssh.FixedHostKey(key)}\n',
  ],
  [
    'security/ssh-host-key-unchecked',
    'bash',
    'ssh -o StrictHostKeyChecking=no deploy@host uptime\n',
    'ssh -o StrictHostKeyChecking=yes deploy@host uptime\n',
  ],
  [
    KEY,
    'python',
    'from cryptography.hazmat.primitives.asymmetric import rsa\nk = rsa.generate_private_key(public_exponent=65537, key_size=1024)\n',
    'from cryptography.hazmat.primitives.asymmetric import rsa\nk = rsa.generate_private_key(public_exponent=65537, key_size=3072)\n',
  ],
  [
    KEY,
    'go',
    'package m\nimport ("crypto/rand"; "crypto/rsa")\nfunc f() { k, _ := rsa.GenerateKey(rand.Reader, 1024); _ = k }\n',
    'package m\nimport ("crypto/rand"; "crypto/rsa")\nfunc f() { k, _ := rsa.GenerateKey(rand.Reader, 2048); _ = k }\n',
  ],
  [
    KEY,
    'java',
    'class A { void f() throws Exception { KeyPairGenerator g = KeyPairGenerator.getInstance("RSA"); g.initialize(1024); } }',
    'class A { void f() throws Exception { KeyPairGenerator g = KeyPairGenerator.getInstance("RSA"); g.initialize(4096); } }',
  ],
  [
    KEY,
    'javascript',
    "const k = crypto.generateKeyPairSync('rsa', { modulusLength: 1024 });",
    "const k = crypto.generateKeyPairSync('rsa', { modulusLength: 4096 });",
  ],
  [
    'security/insecure-temp-file',
    'python',
    'import tempfile\nname = tempfile.mktemp()\n',
    'import tempfile\nfd, name = tempfile.mkstemp()\n',
  ],
  ['security/insecure-temp-file', 'c', 'void f(char *t) { mktemp(t); }', 'void f(char *t) { mkstemp(t); }'],
  [
    'security/unsafe-deserialization-api',
    'python',
    'import yaml\nconf = yaml.load(stream)\n',
    'import yaml\nconf = yaml.load(stream, Loader=yaml.SafeLoader)\n',
  ],
  [
    'security/unsafe-deserialization-api',
    'python',
    "import torch\nmodel = torch.load('model.pt')\n",
    "import torch\nmodel = torch.load('model.pt', weights_only=True)\n",
  ],
  [
    'security/template-autoescape-off',
    'python',
    'import jinja2\nenv = jinja2.Environment(loader=loader)\n',
    'import jinja2\nenv = jinja2.Environment(loader=loader, autoescape=jinja2.select_autoescape())\n',
  ],
  [
    'security/template-autoescape-off',
    'javascript',
    'const t = Handlebars.compile(source, { noEscape: true });',
    'const t = Handlebars.compile(source, { noEscape: false });',
  ],
  [
    'security/hardcoded-iv',
    'go',
    'package m\nimport "crypto/cipher"\nfunc f(b cipher.Block) { s := cipher.NewCTR(b, []byte("0123456789abcdef")); _ = s }\n',
    'package m\nimport "crypto/cipher"\nfunc f(b cipher.Block, iv []byte) { s := cipher.NewCTR(b, iv); _ = s }\n',
  ],
  [
    'security/hardcoded-iv',
    'go',
    'package m\nimport "crypto/cipher"\nfunc f(g cipher.AEAD, m []byte) []byte { return g.Seal(nil, []byte("fixednonce12"), m, nil) }\n',
    'package m\nimport "crypto/cipher"\nfunc f(g cipher.AEAD, n, m []byte) []byte { return g.Seal(nil, n, m, nil) }\n',
  ],
  [
    'security/hardcoded-iv',
    'java',
    'class A { void f() { IvParameterSpec iv = new IvParameterSpec("0123456789abcdef".getBytes()); } }',
    'class A { void f(byte[] b) { IvParameterSpec iv = new IvParameterSpec(b); } }',
  ],
  [
    'security/hardcoded-iv',
    'python',
    'from cryptography.hazmat.primitives.ciphers import modes\nm = modes.CBC(b"0123456789abcdef")\n',
    'import os\nfrom cryptography.hazmat.primitives.ciphers import modes\nm = modes.CBC(os.urandom(16))\n',
  ],
  [
    'security/hardcoded-iv',
    'javascript',
    "const c = crypto.createCipheriv('aes-256-cbc', key, '0123456789abcdef');",
    "const c = crypto.createCipheriv('aes-256-cbc', key, crypto.randomBytes(16));",
  ],
  [
    'security/hardcoded-iv',
    'php',
    "<?php $c = openssl_encrypt($data, 'aes-256-cbc', $key, 0, '0123456789abcdef');",
    "<?php $c = openssl_encrypt($data, 'aes-256-cbc', $key, 0, $iv);",
  ],
  [
    'security/tls-verification-disabled',
    'go',
    'package m\nimport "crypto/tls"\nfunc f() { var c tls.Config\n c.InsecureSkipVerify = true\n _ = c }\n',
    'package m\nimport "crypto/tls"\nfunc f() { var c tls.Config\n c.InsecureSkipVerify = false\n _ = c }\n',
  ],
  [
    'security/http-server-without-timeouts',
    'go',
    'package m\nimport "net/http"\nfunc f(h http.Handler) { _ = http.ListenAndServe(":8080", h) }\n',
    'package m\nimport ("net/http"; "time")\nfunc f(h http.Handler) { s := &http.Server{Addr: ":8080", Handler: h, ReadHeaderTimeout: 5 * time.Second}; _ = s.ListenAndServe() }\n',
  ],
  [
    'security/http-server-without-timeouts',
    'go',
    'package m\nimport "net/http"\nfunc f(h http.Handler) { s := &http.Server{Addr: ":8080", Handler: h}; _ = s.ListenAndServe() }\n',
    'package m\nimport ("net/http"; "time")\nfunc f(h http.Handler) { s := &http.Server{Addr: ":8080", Handler: h, ReadTimeout: time.Minute}; _ = s.ListenAndServe() }\n',
  ],
  [
    'security/hardcoded-temp-path',
    'python',
    "with open('/tmp/report.csv', 'w') as f:\n    f.write(data)\n",
    "import tempfile\nwith tempfile.NamedTemporaryFile('w') as f:\n    f.write(data)\n",
  ],
  [
    'security/hardcoded-temp-path',
    'go',
    'package m\nimport "os"\nfunc f() { fh, _ := os.Create("/tmp/report.csv"); _ = fh }\n',
    'package m\nimport "os"\nfunc f() { fh, _ := os.CreateTemp("", "report-*.csv"); _ = fh }\n',
  ],
  [
    'security/hardcoded-temp-path',
    'java',
    'class A { void f() throws Exception { FileWriter w = new FileWriter("/tmp/report.csv"); } }',
    'class A { void f() throws Exception { Path p = Files.createTempFile("report", ".csv"); } }',
  ],
  [
    'security/hardcoded-temp-path',
    'c',
    'void f(void) { FILE *fp = fopen("/tmp/report.csv", "w"); }',
    'void f(void) { char t[] = "/tmp/reportXXXXXX"; int fd = mkstemp(t); }',
  ],
];

describe('configuration and risky API rules: vulnerable examples fire, safe ones do not', () => {
  for (const [rule, language, vulnerable, safe] of CASES) {
    it(`${rule} in ${language}`, async () => {
      expect(await ruleIdsAtLow(vulnerable, language)).toContain(rule);
      expect(await ruleIdsAtLow(safe, language)).not.toContain(rule);
    });
  }

  it('a Python Environment outside jinja2 is not a template engine', async () => {
    expect(await ruleIdsAtLow('import simpy\nenv = simpy.Environment()\n', 'python')).not.toContain(
      'security/template-autoescape-off',
    );
  });

  it('a deserialiser the dataflow reports keeps one finding on its line', async () => {
    const ids = await ruleIdsAtLow(
      'import pickle\nfrom flask import request\ndef f():\n    return pickle.loads(request.data)\n',
      'python',
    );
    expect(ids).toContain('security/unsafe-deserialization');
    expect(ids).not.toContain('security/unsafe-deserialization-api');
  });
});
