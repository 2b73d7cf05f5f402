import { CODE_LANGUAGES, type CodeLanguage } from '@tessera/shared';
import { describe, expect, it } from 'vitest';
import { analyzeSource } from '../src/modules/code-analysis/analyze';
import { loadLanguage } from '../src/modules/code-analysis/parsing/grammars';
import { compileRule, RULES } from '../src/modules/code-analysis/rules/engine';
import { DEFAULT_THRESHOLDS } from '../src/modules/code-analysis/types';

async function findings(code: string, language: CodeLanguage, type: 'bugs' | 'security' = 'security') {
  const r = await analyzeSource({
    code,
    language,
    filename: undefined,
    analysisType: type,
    thresholds: DEFAULT_THRESHOLDS,
  });
  expect(r.parse_errors, `fixture should parse:\n${code}`).toEqual([]);
  return r.issues;
}

describe('rules as data', () => {
  it('every rule compiles for every language it declares, and each has its metadata', async () => {
    for (const lang of CODE_LANGUAGES) await loadLanguage(lang);
    const ids = new Set<string>();
    for (const rule of RULES) {
      expect(ids.has(rule.id), rule.id).toBe(false);
      ids.add(rule.id);
      expect(rule.message.length).toBeGreaterThan(30);
      if (rule.category === 'security') expect(rule.cwe).toMatch(/^CWE-\d+$/);
      for (const lang of Object.keys(rule.languages) as CodeLanguage[]) {
        expect(() => compileRule(rule, lang), `${rule.id} in ${lang}`).not.toThrow();
      }
    }
  });
});

/** [rule, language, vulnerable, safe] */
const SECURITY: [string, CodeLanguage, string, string][] = [
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
];

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

const BUGS: [string, CodeLanguage, string, string][] = [
  ['bug/assignment-in-condition', 'javascript', 'if (a = b) { f(); }', 'if (a === b) { f(); }'],
  [
    'bug/assignment-in-condition',
    'c',
    'int f(int a, int b) { if (a = b) return 1; return 0; }',
    'int f(int a, int b) { if (a == b) return 1; return 0; }',
  ],
  ['bug/nan-comparison', 'javascript', 'if (x === NaN) { f(); }', 'if (Number.isNaN(x)) { f(); }'],
  ['bug/nan-comparison', 'python', 'if x == float("nan"):\n    f()\n', 'if math.isnan(x):\n    f()\n'],
  ['bug/self-comparison', 'python', 'if a == a:\n    f()\n', 'if a == b:\n    f()\n'],
  [
    'bug/self-assignment',
    'java',
    'class A { int x; void f(int y) { x = x; } }',
    'class A { int x; void f(int x) { this.x = x; } }',
  ],
  [
    'bug/identical-branches',
    'javascript',
    'const v = ok ? compute(1) : compute(1);',
    'const v = ok ? compute(1) : compute(2);',
  ],
  [
    'bug/identical-branches',
    'go',
    'package m\nfunc f(a bool) { if a { g() } else { g() } }\n',
    'package m\nfunc f(a bool) { if a { g() } else { h() } }\n',
  ],
  [
    'bug/duplicate-condition',
    'java',
    'class A { void f(int a) { if (a > 1) { g(); } else if (a > 1) { h(); } } }',
    'class A { void f(int a) { if (a > 1) { g(); } else if (a > 2) { h(); } } }',
  ],
  ['bug/duplicate-key', 'python', 'd = {"a": 1, "b": 2, "a": 3}\n', 'd = {"a": 1, "b": 2, "c": 3}\n'],
  [
    'bug/duplicate-key',
    'typescript',
    'const o = { id: 1, name: "x", id: 2 };',
    'const o = { id: 1, name: "x" };',
  ],
  [
    'bug/unreachable-code',
    'java',
    'class A { int f() { return 1; g(); } }',
    'class A { int f() { g(); return 1; } }',
  ],
  [
    'bug/unreachable-code',
    'python',
    'def f():\n    raise ValueError()\n    g()\n',
    'def f():\n    g()\n    raise ValueError()\n',
  ],
  [
    'bug/unreachable-code',
    'javascript',
    'function f() { return 1; g(); }',
    'function f() { return g(); function g() { return 1; } }',
  ],
  [
    'bug/empty-catch',
    'java',
    'class A { void f() { try { g(); } catch (Exception e) {} } }',
    'class A { void f() { try { g(); } catch (Exception e) { log(e); } } }',
  ],
  [
    'bug/empty-catch',
    'python',
    'try:\n    g()\nexcept ValueError:\n    pass\n',
    'try:\n    g()\nexcept ValueError as e:\n    log(e)\n',
  ],
  [
    'bug/bare-except',
    'python',
    'try:\n    g()\nexcept:\n    log()\n',
    'try:\n    g()\nexcept Exception:\n    log()\n',
  ],
  [
    'bug/mutable-default-argument',
    'python',
    'def f(items=[]):\n    return items\n',
    'def f(items=None):\n    return items or []\n',
  ],
  ['bug/loose-equality', 'javascript', 'if (a == 1) { f(); }', 'if (a === 1 || b == null) { f(); }'],
  [
    'bug/switch-fall-through',
    'javascript',
    'switch (a) { case 1: f(); case 2: g(); break; }',
    'switch (a) { case 1: case 2: g(); break; case 3: return h(); default: i(); }',
  ],
  [
    'bug/switch-fall-through',
    'c',
    'void f(int a) { switch (a) { case 1: g(); case 2: h(); break; } }',
    'void f(int a) { switch (a) { case 1: g(); break; case 2: h(); break; } }',
  ],
];

describe('bug rules: buggy examples fire, fixed ones do not', () => {
  for (const [rule, language, buggy, fixed] of BUGS) {
    it(`${rule} in ${language}`, async () => {
      expect((await findings(buggy, language, 'bugs')).map((f) => f.rule_id)).toContain(rule);
      expect((await findings(fixed, language, 'bugs')).map((f) => f.rule_id)).not.toContain(rule);
    });
  }
});

describe('unused local variables', () => {
  it('reports a local that is assigned and never read, in JS/TS and Python', async () => {
    const js = await findings(
      'function f(a) {\n  const unused = a * 2;\n  const used = a + 1;\n  return { used };\n}\n',
      'javascript',
      'bugs',
    );
    expect(
      js.filter((f) => f.rule_id === 'bug/unused-variable').map((f) => [f.line, f.column, f.snippet]),
    ).toEqual([[2, 9, 'unused']]);
    const py = await findings(
      'def f(a):\n    tmp = a * 2\n    total = 0\n    total += a\n    return total\n',
      'python',
      'bugs',
    );
    expect(py.filter((f) => f.rule_id === 'bug/unused-variable').map((f) => f.message)).toEqual([
      "Local variable 'tmp' is assigned but never read; remove it, or use it where it was meant to be used.",
    ]);
  });

  /** [language, code with exactly one unused local named `unused` (line given), code where every local is read] */
  const LANGUAGES: [CodeLanguage, string, number, string][] = [
    [
      'go',
      'package main\n\nfunc f(a int) int {\n\tunused := a * 2\n\tvar used = a + 1\n\tv, err := g(a)\n\tif err != nil {\n\t\treturn 0\n\t}\n\treturn used + v\n}\n',
      4,
      'package main\n\nvar pkg = 1\n\nfunc f(a int) func() int {\n\tx := a * 2\n\t_, err := g(a)\n\tif err != nil {\n\t\treturn nil\n\t}\n\treturn func() int { return x }\n}\n',
    ],
    [
      'rust',
      'fn f(a: i32) -> i32 {\n    let unused = a * 2;\n    let mut used = a + 1;\n    used += 1;\n    used\n}\n',
      2,
      'fn f(a: i32) -> String {\n    let _ignored = a * 2;\n    let shown = a + 1;\n    let x = a;\n    let add = move |y: i32| x + y;\n    format!("{shown} {}", add(1))\n}\n',
    ],
    [
      'java',
      'class C {\n  private int field = 1;\n  int f(int a) {\n    int unused = a * 2;\n    int used = a + 1;\n    return used;\n  }\n}\n',
      4,
      'class C {\n  private int field = 1;\n  Runnable f(int a) {\n    int x = a * 2;\n    return () -> System.out.println(x);\n  }\n}\n',
    ],
    [
      'csharp',
      'class C {\n  int F(int a) {\n    var unused = a * 2;\n    var used = a + 1;\n    return used;\n  }\n}\n',
      3,
      'class C {\n  private int field = 1;\n  string F(int a) {\n    var x = a * 2;\n    return $"value {x}";\n  }\n}\n',
    ],
    [
      'kotlin',
      'fun f(a: Int): Int {\n    val unused = a * 2\n    val used = a + 1\n    return used\n}\n',
      2,
      'class C {\n    val field = 1\n    fun f(a: Int): String {\n        val x = a * 2\n        val (p, q) = Pair(1, 2)\n        return "value $x"\n    }\n}\n',
    ],
    [
      'swift',
      'func f(a: Int) -> Int {\n    let unused = a * 2\n    let used = a + 1\n    return used\n}\n',
      2,
      'func f(a: Int) -> String {\n    let x = a * 2\n    return "value \\(x)"\n}\n',
    ],
    [
      'scala',
      'object O {\n  def f(a: Int): Int = {\n    val unused = a * 2\n    val used = a + 1\n    used\n  }\n}\n',
      3,
      'object O {\n  val field = 1\n  def f(a: Int): String = {\n    val x = a * 2\n    s"value $x"\n  }\n}\n',
    ],
  ];

  for (const [language, withUnused, line, allRead] of LANGUAGES) {
    it(`reports exactly the unused local in ${language}, and nothing when every local is read`, async () => {
      const found = (await findings(withUnused, language, 'bugs')).filter(
        (f) => f.rule_id === 'bug/unused-variable',
      );
      expect(found.map((f) => [f.line, f.snippet])).toEqual([[line, 'unused']]);
      const none = (await findings(allRead, language, 'bugs')).filter(
        (f) => f.rule_id === 'bug/unused-variable',
      );
      expect(none.map((f) => f.message)).toEqual([]);
    });
  }

  it('does not report names read by a nested function, ignored names, module-level names or eval users', async () => {
    const cases: [CodeLanguage, string][] = [
      ['javascript', 'function f() {\n  const x = 1;\n  return () => x;\n}\n'],
      ['javascript', 'const top = 1;\nfunction f(code) {\n  const y = 2;\n  return eval(code);\n}\n'],
      [
        'typescript',
        'function f(): number {\n  const _ignored = 1;\n  let n = 0;\n  n = 5;\n  return n;\n}\n',
      ],
      ['python', 'LIMIT = 10\ndef f():\n    x = 1\n    return locals()\n'],
      ['python', 'def f(xs):\n    seen = set()\n    def add(x):\n        seen.add(x)\n    return add\n'],
    ];
    for (const [language, code] of cases) {
      const ids = (await findings(code, language, 'bugs')).map((f) => f.rule_id);
      expect({ code, ids }).toEqual({ code, ids: ids.filter((i) => i !== 'bug/unused-variable') });
    }
  });
});
