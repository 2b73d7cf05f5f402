/** Hard-coded secrets: provider key formats, private keys, credential-named literals and literal keys given to APIs. */
import { describe, expect, it } from 'vitest';
import { findings, type RuleCase } from '../helpers/code-analysis';

/** [rule, language, vulnerable, safe] */
const SECRETS: RuleCase[] = [
  [
    'security/hardcoded-token',
    'python',
    'SLACK = "https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/abcdefghijklmnopqrstuvwx"\n',
    'SLACK = os.environ["SLACK_WEBHOOK"]\n',
  ],
  [
    'security/hardcoded-token',
    'javascript',
    "const stripe = require('stripe')('sk_live_4eC39HqLyjWDarjtT1zdp7dc9');",
    "const stripe = require('stripe')(process.env.STRIPE_KEY);",
  ],
  [
    'security/hardcoded-token',
    'go',
    'package m\nconst dsn = "root:S3cretPw@tcp(db.corp:3306)/app"\n',
    `package m\nconst dsn = "root:\${DB_PASS}@tcp(db.corp:3306)/app"\n`,
  ],
  [
    'security/hardcoded-token',
    'java',
    'class A { String t = "glpat-Xy12abCD34efGH56ijKL"; }',
    'class A { String t = System.getenv("GITLAB_TOKEN"); }',
  ],
  [
    'security/hardcoded-token',
    'csharp',
    'class A { string c = "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=bXlzZWNyZXRrZXlteXNlY3JldGtleW15c2VjcmV0a2V5bXlzZWNyZXQ=;"; }',
    'class A { string c = Environment.GetEnvironmentVariable("STORAGE"); }',
  ],
  [
    'security/hardcoded-token',
    'ruby',
    'DB = "postgres://admin:Sup3rS3cret@db.prod.corp.com/app"\n',
    'DB = "postgres://user:password@localhost/app"\n',
  ],
  [
    'security/hardcoded-token',
    'php',
    '<?php $h = ["Authorization" => "Bearer abcdef0123456789abcdef0123456789"];',
    '<?php $h = ["Authorization" => "Bearer " . $token];',
  ],
  [
    'security/hardcoded-token',
    'rust',
    'const T: &str = "npm_abcdefghijklmnopqrstuvwxyz0123456789";\n',
    'const T: &str = "npm_install";\n',
  ],
  [
    'security/hardcoded-private-key',
    'javascript',
    "const k = '-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\\n-----END PRIVATE KEY-----';",
    "const k = '-----BEGIN PRIVATE KEY-----\\n...\\n-----END PRIVATE KEY-----';",
  ],
  [
    'security/hardcoded-private-key',
    'go',
    'package m\nconst k = `-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----`\n',
    'package m\nconst k = "-----BEGIN PUBLIC KEY-----"\n',
  ],
  [
    'security/hardcoded-credential',
    'python',
    'def login(user, password="Adm1nPass"):\n    pass\n',
    'def login(user, password=None):\n    pass\n',
  ],
  [
    'security/hardcoded-credential',
    'python',
    'app.config["SECRET_KEY"] = "a8f5f167f44f4964e6c998dee827110c"\n',
    'app.config["SECRET_KEY"] = os.environ["SECRET_KEY"]\n',
  ],
  [
    'security/hardcoded-credential',
    'python',
    'if password == "hunter22":\n    grant()\n',
    'if password == "":\n    deny()\n',
  ],
  [
    'security/hardcoded-credential',
    'javascript',
    "class Db { password = 'Pg!pass99'; }",
    'class Db { password = process.env.PGPASSWORD; }',
  ],
  [
    'security/hardcoded-credential',
    'java',
    'class A { void f(DataSource ds) { ds.setPassword("Pa55word!"); } }',
    'class A { void f(DataSource ds) { ds.setPassword(System.getenv("DB_PASS")); } }',
  ],
  [
    'security/hardcoded-credential',
    'go',
    'package m\nvar c = Config{Password: "Xy7!pQ2w"}\n',
    'package m\nvar c = Config{Password: os.Getenv("DB_PASS")}\n',
  ],
  [
    'security/hardcoded-credential',
    'ruby',
    'conn = PG.connect(host: "db", password: "Pg!pass99")\n',
    'conn = PG.connect(host: "db", password: ENV["PGPASSWORD"])\n',
  ],
  [
    'security/hardcoded-credential',
    'csharp',
    'class A { void F() { var c = new Conn { Password = "Xy7!pQ2w" }; } }',
    'class A { void F() { var c = new Conn { Password = config["Db:Password"] }; } }',
  ],
  [
    'security/hardcoded-credential',
    'php',
    "<?php define('DB_PASSWORD', 'Zx81!kkP');",
    "<?php define('DB_PASSWORD', getenv('DB_PASSWORD'));",
  ],
  [
    'security/hardcoded-credential',
    'kotlin',
    'fun f() { val password = "Kt!pass123" }',
    'fun f() { val password = System.getenv("PASS") }',
  ],
  [
    'security/hardcoded-credential',
    'swift',
    'func f() { connect(password: "Sw!ft2024") }',
    'func f() { connect(password: env["PASS"]) }',
  ],
  [
    'security/hardcoded-credential',
    'rust',
    'fn f() { let c = Config { password: "Ru5t!pw".to_string() }; }',
    'fn f() { let c = Config { password: std::env::var("PW").unwrap() }; }',
  ],
  [
    'security/hardcoded-credential',
    'c',
    'int f(const char *password) { return strcmp(password, "letm3in!") == 0; }',
    'int f(const char *password) { return strcmp(password, "") == 0; }',
  ],
  [
    'security/hardcoded-credential',
    'bash',
    'export DB_PASSWORD=Sh3llPw!x\n',
    'export DB_PASSWORD="$(cat /run/secrets/db)"\n',
  ],
  [
    'security/hardcoded-key',
    'python',
    'token = jwt.encode({"a": 1}, "secret", algorithm="HS256")\n',
    'token = jwt.encode({"a": 1}, settings.JWT_SECRET, algorithm="HS256")\n',
  ],
  [
    'security/hardcoded-key',
    'javascript',
    "const t = jwt.sign({ id: user.id }, 'shhhhh');",
    'const t = jwt.sign({ id: user.id }, process.env.JWT_SECRET);',
  ],
  [
    'security/hardcoded-key',
    'java',
    'class A { void f() { SecretKeySpec k = new SecretKeySpec("0123456789abcdef".getBytes(), "AES"); } }',
    'class A { void f(byte[] raw) { SecretKeySpec k = new SecretKeySpec(raw, "AES"); } }',
  ],
  [
    'security/hardcoded-key',
    'java',
    'class A { void f() throws Exception { DriverManager.getConnection("jdbc:mysql://db/x", "root", "r00tPass"); } }',
    'class A { void f(String u, String p) throws Exception { DriverManager.getConnection("jdbc:mysql://db/x", u, p); } }',
  ],
  [
    'security/hardcoded-key',
    'go',
    'package m\nfunc f() { s, _ := token.SignedString([]byte("my-signing-secret")); _ = s }\n',
    'package m\nfunc f() { s, _ := token.SignedString(key); _ = s }\n',
  ],
  [
    'security/hardcoded-key',
    'php',
    "<?php $pdo = new PDO('mysql:host=db;dbname=app', 'root', 'R00tPass!');",
    "<?php $pdo = new PDO($dsn, $user, getenv('DB_PASS'));",
  ],
  [
    'security/hardcoded-key',
    'ruby',
    "token = JWT.encode(payload, 'myS3cretK3y', 'HS256')\n",
    "token = JWT.encode(payload, ENV['JWT_SECRET'], 'HS256')\n",
  ],
  [
    'security/hardcoded-key',
    'csharp',
    'class A { void F() { var c = new NetworkCredential("admin", "Adm1n!Pass"); } }',
    'class A { void F(string p) { var c = new NetworkCredential("admin", p); } }',
  ],
  [
    'security/hardcoded-key',
    'rust',
    'fn f() { let key = EncodingKey::from_secret(b"rust-jwt-secret"); }',
    'fn f(s: &[u8]) { let key = EncodingKey::from_secret(s); }',
  ],
];

describe('hard-coded secrets: vulnerable examples fire, safe ones do not', () => {
  for (const [rule, language, vulnerable, safe] of SECRETS) {
    it(`${rule} in ${language}`, async () => {
      const bad = await findings(vulnerable, language);
      expect(bad.map((f) => f.rule_id)).toContain(rule);
      expect((await findings(safe, language)).map((f) => f.rule_id)).not.toContain(rule);
    });
  }
});

describe('hard-coded credentials: names and values that are not secrets stay quiet', () => {
  it('skips labels, map keys, URLs, placeholders, prose, regexes and repeated characters', async () => {
    const code = [
      'PASSWORD_FIELD = "password"',
      'PASSWORD_KEY = "user_password"',
      'token_url = "https://auth.corp.com/token"',
      'password = "changeme"',
      'password = "<your-password>"',
      `api_key = "\${API_KEY}"`,
      'api_key = "xxxxxxxxxxxx"',
      'secret = "************"',
      'password_prompt = "Enter your password please"',
      'token_type = "Bearer"',
      'TOKEN_RE = r"[A-Za-z0-9]+"',
      'password = ""',
      'HEADER = "X-Auth-Token"',
      'auth_header = {"Authorization": "Basic configuration"}',
      '',
    ].join('\n');
    const rules = (await findings(code, 'python')).map((f) => `${f.rule_id}:${f.line}`);
    expect(rules.filter((r) => r.startsWith('security/hardcoded'))).toEqual([]);
  });

  it("reads `token` as a lexer's or parser's token unless the value looks generated", async () => {
    const lexer = [
      'const rules = [',
      '  { regex: /#.*/, token: "comment" },',
      '  { regex: /<<</, token: "string-2", next: "heredoc" },',
      '];',
      'let token = "variable.language";',
      '',
    ].join('\n');
    expect((await findings(lexer, 'javascript')).map((f) => f.rule_id)).not.toContain(
      'security/hardcoded-credential',
    );
    const real =
      'const client = new Api({ token: "9f8e7d6c5b4a3f2e1d0c" });\nlet authToken = "Zt81kqP0aX93mLw2";\n';
    expect(
      (await findings(real, 'javascript'))
        .filter((f) => f.rule_id === 'security/hardcoded-credential')
        .map((f) => f.line),
    ).toEqual([1, 2]);
  });
});
