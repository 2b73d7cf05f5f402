/** Security pattern rules (weak crypto, credentials, TLS, XXE, debug mode): vulnerable examples fire, safe ones do not. */
import { describe, expect, it } from 'vitest';
import { findings, type RuleCase } from '../helpers/code-analysis';

/** [rule, language, vulnerable, safe] */
const SECURITY: RuleCase[] = [
  [
    'security/hardcoded-credential',
    'go',
    'package m\ntype DB struct{ Password string }\nvar d = DB{Password: "f62e5bcda4fae4f8237"}\n',
    'package m\nimport "os"\ntype DB struct{ Password string }\nvar d = DB{Password: os.Getenv("DB_PASSWORD")}\n',
  ],
  [
    'security/hardcoded-credential',
    'go',
    'package m\nfunc ok(password string) bool { return password == "Kjasdlkjapo98098sdf" }\n',
    'package m\nfunc ok(password string) bool { return password == "" }\n',
  ],
  [
    'security/hardcoded-credential',
    'python',
    'def ok(password):\n    return password == "Kjasdlkjapo98098sdf"\n',
    'def ok(password):\n    return hmac.compare_digest(password, stored)\n',
  ],
  [
    'security/weak-hash',
    'python',
    'import hashlib\nh = hashlib.md5(data).hexdigest()\n',
    'import hashlib\nh = hashlib.sha256(data).hexdigest()\n',
  ],
  [
    'security/weak-hash',
    'javascript',
    "const h = crypto.createHash('md5').update(s).digest('hex');",
    "const h = crypto.createHash('sha256').update(s).digest('hex');",
  ],
  [
    'security/weak-hash',
    'java',
    'class A { void f() throws Exception { MessageDigest md = MessageDigest.getInstance("MD5"); } }',
    'class A { void f() throws Exception { MessageDigest md = MessageDigest.getInstance("SHA-256"); } }',
  ],
  [
    'security/weak-hash',
    'go',
    'package m\nfunc f(b []byte) { _ = md5.Sum(b) }\n',
    'package m\nfunc f(b []byte) { _ = sha256.Sum256(b) }\n',
  ],
  [
    'security/weak-hash',
    'go',
    'package m\nimport "golang.org/x/crypto/md4"\nfunc f(b []byte) []byte { h := md4.New(); h.Write(b); return h.Sum(nil) }\n',
    'package m\nimport "golang.org/x/crypto/sha3"\nfunc f(b []byte) []byte { h := sha3.New256(); h.Write(b); return h.Sum(nil) }\n',
  ],
  [
    'security/weak-hash',
    'go',
    'package m\nimport "golang.org/x/crypto/ripemd160"\nfunc f(b []byte) []byte { h := ripemd160.New(); h.Write(b); return h.Sum(nil) }\n',
    'package m\nimport "crypto/sha512"\nfunc f(b []byte) []byte { h := sha512.New(); h.Write(b); return h.Sum(nil) }\n',
  ],
  [
    'security/hardcoded-credential',
    'go',
    'package m\nfunc ok(password string) bool { return "Kjasdlkjapo98098sdf" != password }\n',
    'package m\nfunc ok(p string) bool { return "Kjasdlkjapo98098sdf" != p }\n',
  ],
  [
    'security/hardcoded-credential',
    'go',
    'package m\nconst pw = "KjasdlkjapoIKLlka98098sdf012U"\n',
    'package m\nconst pw = "changeme"\n',
  ],
  [
    'security/hardcoded-credential',
    'go',
    'package m\nvar bearer string\nfunc init() { bearer = "2lkjdfoiuwer092834kjdwf09" }\n',
    'package m\nimport "os"\nvar bearer string\nfunc init() { bearer = os.Getenv("API_BEARER") }\n',
  ],
  [
    'security/hardcoded-credential',
    'go',
    'package m\nvar conf = map[string]string{"db_password": "Xq93kLmz0PwR7tYv"}\n',
    'package m\nvar conf = map[string]string{"db_password": "secret", "db_user": "Xq93kLmz0PwR7tYv"}\n',
  ],
  [
    'security/unsafe-memory-access',
    'go',
    'package m\nimport "unsafe"\nfunc f(b []byte) string { return unsafe.String(&b[0], len(b)) }\n',
    'package m\nimport "unsafe"\nfunc f(b []byte) (string, uintptr) { return string(b), unsafe.Sizeof(b) }\n',
  ],
  [
    'security/profiling-endpoint-exposed',
    'go',
    'package main\nimport (\n\t"net/http"\n\t_ "net/http/pprof"\n)\nfunc main() { _ = http.ListenAndServe("127.0.0.1:8080", nil) }\n',
    'package main\nimport (\n\t"net/http"\n\t"net/http/pprof"\n)\nfunc main() {\n\tmux := http.NewServeMux()\n\tmux.HandleFunc("/debug/pprof/", pprof.Index)\n\t_ = http.ListenAndServe("127.0.0.1:6060", mux)\n}\n',
  ],
  [
    'security/weak-hash',
    'php',
    '<?php $h = md5($password);',
    '<?php $h = password_hash($password, PASSWORD_DEFAULT);',
  ],
  [
    'security/weak-cipher',
    'python',
    'from Crypto.Cipher import DES\nc = DES.new(key, DES.MODE_ECB)\n',
    'from Crypto.Cipher import AES\nc = AES.new(key, AES.MODE_GCM)\n',
  ],
  [
    'security/weak-cipher',
    'javascript',
    "const c = crypto.createCipheriv('des-ede3-cbc', k, iv);",
    "const c = crypto.createCipheriv('aes-256-gcm', k, iv);",
  ],
  [
    'security/weak-cipher',
    'java',
    'class A { void f() throws Exception { Cipher c = Cipher.getInstance("AES/ECB/PKCS5Padding"); } }',
    'class A { void f() throws Exception { Cipher c = Cipher.getInstance("AES/GCM/NoPadding"); } }',
  ],
  [
    'security/weak-cipher',
    'go',
    'package m\nfunc f(k []byte) { des.NewCipher(k) }\n',
    'package m\nfunc f(k []byte) { aes.NewCipher(k) }\n',
  ],
  [
    'security/weak-hash',
    'c',
    'const EVP_MD *md(void) { return EVP_get_digestbyname("sha1"); }\n',
    'const EVP_MD *md(void) { return EVP_get_digestbyname("sha256"); }\n',
  ],
  [
    'security/weak-hash',
    'cpp',
    'EVP_MD *md() { return EVP_MD_fetch(nullptr, "MD5", nullptr); }\n',
    'EVP_MD *md() { return EVP_MD_fetch(nullptr, "SHA2-256", nullptr); }\n',
  ],
  [
    'security/weak-cipher',
    'c',
    'const EVP_CIPHER *c(void) { return EVP_get_cipherbyname("aes-128-ecb"); }\n',
    'const EVP_CIPHER *c(void) { return EVP_get_cipherbyname("aes-128-gcm"); }\n',
  ],
  [
    'security/insecure-randomness',
    'javascript',
    'const resetToken = Math.random().toString(36).slice(2);',
    'const resetToken = crypto.randomBytes(32).toString("hex");',
  ],
  [
    'security/insecure-randomness',
    'python',
    'import random\nsession_token = random.getrandbits(128)\n',
    'import secrets\nsession_token = secrets.token_hex(16)\n',
  ],
  [
    'security/insecure-randomness',
    'java',
    'class A { void f() { long otpCode = new Random().nextInt(999999); } }',
    'class A { void f() { long otpCode = new SecureRandom().nextInt(999999); } }',
  ],
  [
    'security/insecure-randomness',
    'php',
    '<?php $token = mt_rand();',
    '<?php $token = bin2hex(random_bytes(16));',
  ],
  [
    'security/hardcoded-credential',
    'python',
    'DB_PASSWORD = "s3cr3t-Passw0rd!"\n',
    'import os\nDB_PASSWORD = os.environ["DB_PASSWORD"]\n',
  ],
  [
    'security/hardcoded-credential',
    'javascript',
    "const config = { apiKey: 'AKIA4EXAMPLEKEYQ7QX', region: 'eu' };",
    "const config = { apiKey: process.env.API_KEY, region: 'eu' };",
  ],
  [
    'security/hardcoded-credential',
    'java',
    'class A { private String password = "hunter2hunter2"; }',
    'class A { private String password = System.getenv("PASSWORD"); }',
  ],
  [
    'security/hardcoded-credential',
    'go',
    'package m\nconst apiKey = "9f8e7d6c5b4a39281706"\n',
    'package m\nvar apiKey = os.Getenv("API_KEY")\n',
  ],
  [
    'security/hardcoded-credential',
    'php',
    '<?php $password = "correct-horse-battery";',
    '<?php $password = getenv("DB_PASSWORD");',
  ],
  [
    'security/hardcoded-credential',
    'ruby',
    'SECRET_KEY = "d41d8cd98f00b204e980"\n',
    'SECRET_KEY = ENV.fetch("SECRET_KEY")\n',
  ],
  [
    'security/hardcoded-private-key',
    'python',
    'KEY = """-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----"""\n',
    'KEY = open("/run/secrets/key").read()\n',
  ],
  [
    'security/tls-verification-disabled',
    'python',
    'import requests\nrequests.get(url, verify=False)\n',
    'import requests\nrequests.get(url, verify=True)\n',
  ],
  [
    'security/tls-verification-disabled',
    'javascript',
    'https.request({ host, rejectUnauthorized: false });',
    'https.request({ host, rejectUnauthorized: true });',
  ],
  [
    'security/tls-verification-disabled',
    'go',
    'package m\nvar c = &tls.Config{InsecureSkipVerify: true}\n',
    'package m\nvar c = &tls.Config{MinVersion: tls.VersionTLS12}\n',
  ],
  [
    'security/tls-verification-disabled',
    'go',
    'package m\nvar c = &tls.Config{InsecureSkipVerify: !false}\n',
    'package m\nvar c = &tls.Config{InsecureSkipVerify: !true}\n',
  ],
  [
    'security/weak-cipher',
    'rust',
    'use des::Des;\nfn key() -> Des { todo!() }\n',
    'use aes::Aes256;\nuse desktop::Window;\nfn key() -> Aes256 { todo!() }\n',
  ],
  [
    'security/insecure-memset',
    'c',
    'void f(char *password) {\n  use(password);\n  memset(password, 0, strlen(password));\n  free(password);\n}\n',
    'void f(char *password) {\n  use(password);\n  explicit_bzero(password, strlen(password));\n  free(password);\n}\n',
  ],
  [
    'security/insecure-memset',
    'cpp',
    'void f() {\n  char token[64];\n  load(token);\n  std::memset(token, 0, sizeof token);\n}\n',
    'void f() {\n  char name[64];\n  load(name);\n  std::memset(name, 0, sizeof name);\n}\n',
  ],
  [
    'security/unsafe-strncat',
    'c',
    'void f(char *src) {\n  char buf[64] = "id=";\n  strncat(buf, src, sizeof(buf));\n}\n',
    'void f(char *src) {\n  char buf[64] = "id=";\n  strncat(buf, src, sizeof(buf) - strlen(buf) - 1);\n}\n',
  ],
  [
    'security/download-without-integrity-check',
    'bash',
    'curl -fsSL https://get.example.com/install.sh | sudo /bin/bash -s -- --yes\n',
    'curl -fsSL https://get.example.com/install.sh | sudo tee /opt/install.sh\n',
  ],
  [
    'security/download-without-integrity-check',
    'bash',
    'sudo bash <(curl -fsSL https://get.example.com/install.sh)\n',
    'sudo cp <(curl -fsSL https://get.example.com/motd) /etc/motd\n',
  ],
  [
    'security/download-without-integrity-check',
    'bash',
    '/bin/bash -c "$(curl -fsSL https://get.example.com/install.sh)"\n',
    '/bin/echo "$(curl -fsSL https://get.example.com/version)"\n',
  ],
  [
    'security/tls-verification-disabled',
    'php',
    '<?php curl_setopt($ch, CURLOPT_SSL_VERIFYPEER, false);',
    '<?php curl_setopt($ch, CURLOPT_SSL_VERIFYPEER, true);',
  ],
  [
    'security/xxe',
    'python',
    'from lxml import etree\np = etree.XMLParser(resolve_entities=True)\n',
    'import defusedxml.ElementTree as DET\ntree = DET.parse(f)\n',
  ],
  [
    'security/xxe',
    'java',
    'class A { void f() { DocumentBuilderFactory f = DocumentBuilderFactory.newInstance(); } }',
    'class A { void f() { ObjectMapper m = new ObjectMapper(); } }',
  ],
  [
    'security/xxe',
    'php',
    '<?php libxml_disable_entity_loader(false);',
    '<?php libxml_disable_entity_loader(true);',
  ],
  [
    'security/debug-mode',
    'python',
    'app.run(host="0.0.0.0", debug=True)\n',
    'app.run(host="0.0.0.0", debug=False)\n',
  ],
  ['security/debug-mode', 'python', 'DEBUG = True\n', 'DEBUG = os.environ.get("DEBUG") == "1"\n'],
  [
    'security/debug-mode',
    'php',
    "<?php ini_set('display_errors', '1');",
    "<?php ini_set('display_errors', '0');",
  ],
  [
    'security/cleartext-transport',
    'python',
    'import requests\nr = requests.post("http://api.payments-shop.com/v1/charge", json=order)\n',
    'import requests\nr = requests.post("https://api.payments-shop.com/v1/charge", json=order)\n',
  ],
  [
    'security/cleartext-transport',
    'javascript',
    "const feed = new WebSocket('ws://feed.trading-desk.io/quotes');",
    "const feed = new WebSocket('wss://feed.trading-desk.io/quotes');",
  ],
  [
    'security/cleartext-transport',
    'typescript',
    'const res = await fetch(`http://billing.acme-corp.com/api/invoices/` + id);',
    'const res = await fetch(`https://billing.acme-corp.com/api/invoices/` + id);',
  ],
  [
    'security/cleartext-transport',
    'java',
    'class A { void f() throws Exception { URL u = new URL("http://auth.bank-corp.com/login"); u.openConnection(); } }',
    'class A { void f() throws Exception { URL u = new URL("https://auth.bank-corp.com/login"); u.openConnection(); } }',
  ],
  [
    'security/cleartext-transport',
    'go',
    'package m\nfunc f() { http.Get("http://metrics.corp-infra.net/push") }\n',
    'package m\nfunc f() { http.Get("https://metrics.corp-infra.net/push") }\n',
  ],
  [
    'security/cleartext-transport',
    'php',
    '<?php $ch = curl_init("ftp://files.partner-co.com/upload/report.csv");',
    '<?php $ch = curl_init("https://files.partner-co.com/upload/report.csv");',
  ],
  [
    'security/cleartext-transport',
    'csharp',
    'class A { async Task F(HttpClient c) { await c.GetAsync("http://orders.shop-corp.com/api"); } }',
    'class A { async Task F(HttpClient c) { await c.GetAsync("https://orders.shop-corp.com/api"); } }',
  ],
];

describe('cleartext URLs: what is not a remote cleartext endpoint is not reported', () => {
  it('skips local hosts, reserved test names, XML namespaces, URL checks and prose', async () => {
    const code = [
      'import requests',
      'requests.get("http://localhost:8080/health")',
      'requests.get("http://127.0.0.1:9000/x")',
      'requests.get("http://10.0.0.5/internal")',
      'requests.get("http://api.example.com/v1")',
      'requests.get("http://service.test/v1")',
      'NS = "http://www.w3.org/2001/XMLSchema-instance"',
      'if url.startswith("http://"):',
      '    url = "https://" + url[7:]',
      'HELP = "see http://docs.corp.com for more"',
      'base = "http://" + host',
      '',
    ].join('\n');
    const rules = (await findings(code, 'python')).map((f) => f.rule_id);
    expect(rules).not.toContain('security/cleartext-transport');
  });
});

describe('security pattern rules: vulnerable examples fire, safe ones do not', () => {
  for (const [rule, language, vulnerable, safe] of SECURITY) {
    it(`${rule} in ${language}`, async () => {
      const bad = await findings(vulnerable, language);
      expect(bad.map((f) => f.rule_id)).toContain(rule);
      expect(bad.find((f) => f.rule_id === rule)?.cwe).toMatch(/^CWE-/);
      expect((await findings(safe, language)).map((f) => f.rule_id)).not.toContain(rule);
    });
  }
});
