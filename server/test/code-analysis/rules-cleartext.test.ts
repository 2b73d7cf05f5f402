/** Cleartext transport: clients given an http/ws/ftp URL (in the call or through a variable) and plain protocols. */
import { describe, expect, it } from 'vitest';
import { findings, type RuleCase } from '../helpers/code-analysis';

/** [rule, language, vulnerable, safe] */
const CLEARTEXT: RuleCase[] = [
  [
    'security/cleartext-request',
    'python',
    'import requests\nrequests.get("http://example.com/api")\n',
    'import requests\nrequests.get("https://example.com/api")\n',
  ],
  [
    'security/cleartext-request',
    'python',
    'def f():\n    url = "http://example.com"\n    requests.post(url)\n',
    'def f():\n    url = "https://example.com"\n    requests.post(url)\n',
  ],
  [
    'security/cleartext-request',
    'python',
    'import urllib.request\nurllib.request.urlopen(f"http://api.tld/user/{uid}")\n',
    'import urllib.request\nurllib.request.urlopen("http://localhost:8080/health")\n',
  ],
  [
    'security/cleartext-request',
    'javascript',
    "const r = await fetch('http://api.shop-corp.com/v1');",
    "const r = await fetch('https://api.shop-corp.com/v1');",
  ],
  [
    'security/cleartext-request',
    'typescript',
    "const u = 'http://feeds.corp.com/rss';\nfetch(u);\n",
    "const u = 'https://feeds.corp.com/rss';\nfetch(u);\n",
  ],
  [
    'security/cleartext-request',
    'java',
    'class A { void f() throws Exception { new URL("http://example.com/api").openConnection(); } }',
    'class A { void f() throws Exception { new URL("https://example.com/api").openConnection(); } }',
  ],
  [
    'security/cleartext-request',
    'go',
    'package m\nfunc f() { http.Get("http://example.com") }\n',
    'package m\nfunc f() { http.Get("http://127.0.0.1:8080/metrics") }\n',
  ],
  [
    'security/cleartext-request',
    'csharp',
    'class A { async Task F(HttpClient c) { await c.GetAsync("http://example.com/api"); } }',
    'class A { async Task F(HttpClient c) { await c.GetAsync("https://example.com/api"); } }',
  ],
  [
    'security/cleartext-request',
    'ruby',
    'res = HTTParty.get("http://example.com/api")\n',
    'res = HTTParty.get("https://example.com/api")\n',
  ],
  [
    'security/cleartext-request',
    'php',
    '<?php $a = file_get_contents("http://example.com/data");',
    '<?php $a = file_get_contents("https://example.com/data");',
  ],
  [
    'security/cleartext-request',
    'kotlin',
    'fun f() { val u = URL("http://example.com/x") }',
    'fun f() { val u = URL("https://example.com/x") }',
  ],
  [
    'security/cleartext-request',
    'swift',
    'func f() { let u = URL(string: "http://example.com/x") }',
    'func f() { let u = URL(string: "https://example.com/x") }',
  ],
  [
    'security/cleartext-request',
    'rust',
    'fn f() { let r = reqwest::get("http://example.com"); }',
    'fn f() { let r = reqwest::get("https://example.com"); }',
  ],
  [
    'security/cleartext-request',
    'scala',
    'object A { val r = Source.fromURL("http://example.com") }',
    'object A { val r = Source.fromURL("https://example.com") }',
  ],
  [
    'security/cleartext-request',
    'bash',
    'curl http://example.com/install.sh\n',
    'curl https://example.com/install.sh\n',
  ],
  [
    'security/cleartext-protocol',
    'python',
    'import ftplib\nftp = ftplib.FTP("ftp.example.com")\n',
    'import ftplib\nftp = ftplib.FTP_TLS("ftp.example.com")\n',
  ],
  [
    'security/cleartext-protocol',
    'python',
    'import telnetlib\ntn = telnetlib.Telnet("host.example.com")\n',
    'import paramiko\nc = paramiko.SSHClient()\n',
  ],
  [
    'security/cleartext-protocol',
    'python',
    'import smtplib\ns = smtplib.SMTP("smtp.example.com", 25)\ns.login(u, p)\n',
    'import smtplib\ns = smtplib.SMTP("smtp.example.com", 587)\ns.starttls()\ns.login(u, p)\n',
  ],
  [
    'security/cleartext-protocol',
    'java',
    'class A { void f() throws Exception { Socket s = new Socket("host.corp.com", 80); } }',
    'class A { void f() throws Exception { Socket s = SSLSocketFactory.getDefault().createSocket("host.corp.com", 443); } }',
  ],
  [
    'security/cleartext-protocol',
    'go',
    'package m\nfunc f() { c, _ := ftp.Dial("ftp.example.com:21"); _ = c }\n',
    'package m\nfunc f() { c, _ := sftp.NewClient(conn); _ = c }\n',
  ],
  [
    'security/cleartext-protocol',
    'csharp',
    'class A { void F(SmtpClient client) { client.EnableSsl = false; } }',
    'class A { void F(SmtpClient client) { client.EnableSsl = true; } }',
  ],
  [
    'security/cleartext-protocol',
    'php',
    '<?php $f = ftp_connect("ftp.example.com");',
    '<?php $f = ftp_ssl_connect("ftp.example.com");',
  ],
  [
    'security/cleartext-protocol',
    'ruby',
    'ftp = Net::FTP.new("ftp.example.com")\n',
    'sftp = Net::SFTP.start("ftp.example.com", "u")\n',
  ],
];

describe('cleartext transport: vulnerable examples fire, safe ones do not', () => {
  for (const [rule, language, vulnerable, safe] of CLEARTEXT) {
    it(`${rule} in ${language}`, async () => {
      const bad = await findings(vulnerable, language);
      expect(bad.map((f) => f.rule_id)).toContain(rule);
      expect(bad.find((f) => f.rule_id === rule)?.cwe).toBe('CWE-319');
      expect((await findings(safe, language)).map((f) => f.rule_id)).not.toContain(rule);
    });
  }
});

describe('cleartext requests: local hosts, namespaces and bare schemes are not reported', () => {
  it('skips loopback and private hosts, XML namespaces, a scheme without a host and non-client calls', async () => {
    const code = [
      'import requests',
      'requests.get("http://localhost:8080/health")',
      'requests.get("http://10.0.0.5/internal")',
      'requests.get("http://" + host)',
      'requests.get("https://example.com")',
      'ET.register_namespace("x", "http://www.w3.org/2001/XMLSchema-instance")',
      'log.info("http://api.corp.com is down")',
      '',
    ].join('\n');
    const rules = (await findings(code, 'python')).map((f) => f.rule_id);
    expect(rules).not.toContain('security/cleartext-request');
  });
});
