/** Credentials insufficiently protected: in a URL, or sent with basic authentication over plain HTTP. */
import { describe, expect, it } from 'vitest';
import { findings, type RuleCase } from '../helpers/code-analysis';

/** [rule, language, vulnerable, safe] */
const CASES: RuleCase[] = [
  [
    'security/credentials-in-url',
    'python',
    'u = "https://api.corp.com/v1/items?access_token=" + tok\n',
    'u = "https://api.corp.com/v1/items?page=" + page\n',
  ],
  [
    'security/credentials-in-url',
    'javascript',
    `const u = \`https://api.corp.com/login?user=bob&password=\${pw}\`;`,
    `const u = \`https://api.corp.com/login?user=\${user}\`;`,
  ],
  [
    'security/credentials-in-url',
    'java',
    'class A { String u = "https://api.corp.com/x?api_key=" + key; }',
    'class A { String u = "https://api.corp.com/x?id=" + id; }',
  ],
  [
    'security/credentials-in-url',
    'go',
    'package m\nvar u = "https://api.corp.com/x?token=" + tok\n',
    'package m\nvar u = "https://api.corp.com/x?page=" + p\n',
  ],
  [
    'security/basic-auth-over-http',
    'python',
    'import requests\nr = requests.get("http://api.corp.com/data", auth=("admin", pw))\n',
    'import requests\nr = requests.get("https://api.corp.com/data", auth=("admin", pw))\n',
  ],
  [
    'security/basic-auth-over-http',
    'javascript',
    "axios.get('http://api.corp.com/data', { auth: { username: 'a', password: p } });",
    "axios.get('https://api.corp.com/data', { auth: { username: 'a', password: p } });",
  ],
];

describe('credentials in URLs and over HTTP: vulnerable examples fire, safe ones do not', () => {
  for (const [rule, language, vulnerable, safe] of CASES) {
    it(`${rule} in ${language}`, async () => {
      const bad = await findings(vulnerable, language);
      expect(bad.map((f) => f.rule_id)).toContain(rule);
      expect(bad.find((f) => f.rule_id === rule)?.cwe).toBe('CWE-522');
      expect((await findings(safe, language)).map((f) => f.rule_id)).not.toContain(rule);
    });
  }
});
