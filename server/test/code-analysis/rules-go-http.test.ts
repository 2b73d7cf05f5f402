/**
 * Go HTTP and SSH server mistakes (rules/go/http-messages.ts, client-redirects.ts, ssh-auth-state.ts and the CSRF
 * bypass in rules/csrf.ts, TLS resumption in rules/network.ts, walk-races.ts): conflicting length headers, unbounded
 * multipart forms, credentials carried across redirects, state kept by an SSH key callback, cross-origin protection
 * bypassed for every path, VerifyPeerCertificate skipped on resumption, files changed during a directory walk.
 */
import { describe, expect, it } from 'vitest';
import { findings } from '../helpers/code-analysis';

const handler = (body: string) =>
  `package main\n\nimport "net/http"\n\nfunc handler(w http.ResponseWriter, r *http.Request) {\n${body}\n}\n`;
const client = (body: string) =>
  `package main\n\nimport "net/http"\n\nfunc client() *http.Client {\n\treturn &http.Client{\n\t\tCheckRedirect: func(req *http.Request, via []*http.Request) error {\n${body}\n\t\t\treturn nil\n\t\t},\n\t}\n}\n`;
const sshServer = (body: string) =>
  `package main\n\nimport "golang.org/x/crypto/ssh"\n\nvar lastKey ssh.PublicKey\n\nfunc config() *ssh.ServerConfig {\n\treturn &ssh.ServerConfig{\n\t\tPublicKeyCallback: func(conn ssh.ConnMetadata, key ssh.PublicKey) (*ssh.Permissions, error) {\n${body}\n\t\t},\n\t}\n}\n`;

/** [rule, CWE, vulnerable, safe] */
const CASES: [string, string, string, string][] = [
  [
    'security/http-conflicting-length-headers',
    'CWE-444',
    handler(
      '\tw.Header().Set("Transfer-Encoding", "chunked")\n\tw.Header().Set("Content-Length", "100")\n\tw.Write([]byte("body"))',
    ),
    handler('\tw.Header().Set("Content-Length", "4")\n\tw.Write([]byte("body"))'),
  ],
  [
    'security/unbounded-multipart-form',
    'CWE-400',
    handler('\t_ = r.ParseMultipartForm(32 << 20)'),
    handler('\tr.Body = http.MaxBytesReader(w, r.Body, 10<<20)\n\t_ = r.ParseMultipartForm(32 << 20)'),
  ],
  [
    'security/redirect-forwards-credentials',
    'CWE-200',
    client('\t\t\treq.Header = via[0].Header.Clone()'),
    client('\t\t\treq.Header.Set("X-Request-ID", via[0].Header.Get("X-Request-ID"))'),
  ],
  [
    'security/redirect-forwards-credentials',
    'CWE-200',
    client('\t\t\treq.Header.Set("Authorization", "Bearer t")'),
    client('\t\t\tif len(via) > 5 {\n\t\t\t\treturn http.ErrUseLastResponse\n\t\t\t}'),
  ],
  [
    'security/ssh-key-callback-state',
    'CWE-287',
    sshServer('\t\t\tlastKey = key\n\t\t\treturn &ssh.Permissions{}, nil'),
    sshServer(
      '\t\t\tfp := ssh.FingerprintSHA256(key)\n\t\t\treturn &ssh.Permissions{Extensions: map[string]string{"fp": fp}}, nil',
    ),
  ],
  [
    'security/csrf-protection-bypassed',
    'CWE-352',
    'package main\n\nimport "net/http"\n\nfunc setup(cop *http.CrossOriginProtection) {\n\tcop.AddInsecureBypassPattern("/")\n}\n',
    'package main\n\nimport "net/http"\n\nfunc setup(cop *http.CrossOriginProtection) {\n\tcop.AddInsecureBypassPattern("POST /webhooks/stripe")\n}\n',
  ],
  [
    'security/tls-resumption-skips-verification',
    'CWE-295',
    'package main\n\nimport (\n\t"crypto/tls"\n\t"crypto/x509"\n)\n\nvar cfg = &tls.Config{\n\tVerifyPeerCertificate: func(_ [][]byte, _ [][]*x509.Certificate) error { return nil },\n}\n',
    'package main\n\nimport (\n\t"crypto/tls"\n\t"crypto/x509"\n)\n\nvar cfg = &tls.Config{\n\tVerifyPeerCertificate: func(_ [][]byte, _ [][]*x509.Certificate) error { return nil },\n\tSessionTicketsDisabled: true,\n}\n',
  ],
  [
    'security/walk-path-race',
    'CWE-367',
    'package main\n\nimport (\n\t"io/fs"\n\t"os"\n\t"path/filepath"\n)\n\nfunc clean(dir string) error {\n\treturn filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {\n\t\tbackup := p + ".bak"\n\t\treturn os.Remove(backup)\n\t})\n}\n',
    'package main\n\nimport (\n\t"io/fs"\n\t"os"\n\t"path/filepath"\n)\n\nfunc clean(root *os.Root, dir string) error {\n\treturn filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {\n\t\treturn root.Remove(p)\n\t})\n}\n',
  ],
];

describe('Go HTTP and SSH server rules: vulnerable examples fire, safe ones do not', () => {
  for (const [rule, cwe, vulnerable, safe] of CASES) {
    it(rule, async () => {
      const bad = (await findings(vulnerable, 'go')).filter((f) => f.rule_id === rule);
      expect(bad.length, vulnerable).toBe(1);
      expect(bad[0]?.cwe).toBe(cwe);
      expect(
        (await findings(safe, 'go')).filter((f) => f.rule_id === rule),
        safe,
      ).toEqual([]);
    });
  }
});
