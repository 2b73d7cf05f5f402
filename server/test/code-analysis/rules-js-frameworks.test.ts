/**
 * Framework rules for JavaScript/TypeScript: DOM/React/Vue raw-HTML and link-URL sinks given values the code does not
 * fix, NestJS CORS open to any origin, and AWS CDK constructs configured unprotected (TypeScript and Python). Each
 * vulnerable example fires its rule at the default confidence (medium), each safe one does not.
 */
import type { CodeLanguage } from '@tessera/shared';
import { describe, expect, it } from 'vitest';
import { analyzeSource } from '../../src/modules/code-analysis/analyze';
import { DEFAULT_THRESHOLDS } from '../../src/modules/code-analysis/types';
import type { RuleCase } from '../helpers/code-analysis';

async function findings(code: string, language: CodeLanguage) {
  const r = await analyzeSource({
    code,
    language,
    filename: undefined,
    analysisType: 'security',
    thresholds: DEFAULT_THRESHOLDS,
  });
  expect(r.parse_errors, `${language} fixture should parse:\n${code}`).toEqual([]);
  return r.issues;
}
const ruleIds = async (code: string, language: CodeLanguage) =>
  (await findings(code, language)).map((i) => i.rule_id);

const HTML = 'security/unsafe-html-sink';
const URL_ATTR = 'security/unsafe-url-attribute';
const CORS = 'security/cors-any-origin';
const UNENCRYPTED = 'security/cloud-data-unencrypted';
const HTTP = 'security/cloud-storage-allows-http';
const PUBLIC = 'security/cloud-storage-public';
const INGRESS = 'security/cloud-ingress-from-anywhere';
const BADGE = 'security/cloud-build-public';
const TABNAB = 'security/target-blank-without-noopener';
const HTTPONLY = 'security/cookie-without-httponly';
const DOTFILES = 'security/static-serves-dotfiles';

const cdkTs = (body: string) =>
  `import * as cdk from 'aws-cdk-lib';\nimport * as s3 from 'aws-cdk-lib/aws-s3';\nimport * as sqs from 'aws-cdk-lib/aws-sqs';\nimport * as ec2 from 'aws-cdk-lib/aws-ec2';\nimport * as rds from 'aws-cdk-lib/aws-rds';\n\nexport class S extends cdk.Stack {\n  constructor(scope: cdk.App, id: string) {\n    super(scope, id);\n    ${body}\n  }\n}\n`;
const cdkPy = (body: string) =>
  `from aws_cdk import Stack\nfrom aws_cdk.aws_s3 import Bucket, BucketEncryption\nfrom aws_cdk import aws_ec2 as ec2\nfrom aws_cdk import aws_rds as rds\n\n\nclass S(Stack):\n    def __init__(self, scope, cid):\n        super().__init__(scope, cid)\n        ${body}\n`;

const CASES: RuleCase[] = [
  [HTML, 'javascript', 'el.innerHTML = html;', "el.innerHTML = '';"],
  [
    HTML,
    'javascript',
    'el.innerHTML += `<li>${item.name}</li>`;',
    'el.innerHTML += `<li>${escapeHtml(item.name)}</li>`;',
  ],
  [
    HTML,
    'typescript',
    "el.insertAdjacentHTML('beforeend', rows.join(''));",
    "el.insertAdjacentHTML('beforeend', '<hr>');",
  ],
  [
    HTML,
    'javascript',
    "document.write('<p>' + msg + '</p>');",
    "document.write('<p>' + msg.length + '</p>');",
  ],
  [HTML, 'javascript', 'el.outerHTML = TEMPLATE + body;', 'el.outerHTML = TEMPLATE;'],
  [
    HTML,
    'tsx',
    'export const A = ({ md }: { md: string }) => <div dangerouslySetInnerHTML={{ __html: marked(md) }} />;',
    'export const A = ({ md }: { md: string }) => <div dangerouslySetInnerHTML={{ __html: sanitizeHtml(marked(md)) }} />;',
  ],
  [
    HTML,
    'javascript',
    'export const A = () => <div dangerouslySetInnerHTML={createMarkup()} />;',
    "export const A = () => <div dangerouslySetInnerHTML={{ __html: '<b>hi</b>' }} />;",
  ],
  [
    HTML,
    'typescript',
    "React.createElement('div', { dangerouslySetInnerHTML: { __html: props.body } });",
    "React.createElement('div', { dangerouslySetInnerHTML: { __html: DOMPurify.sanitize(props.body) } });",
  ],
  [
    URL_ATTR,
    'tsx',
    'export const L = ({ u }: { u: string }) => <a href={`${u}`}>x</a>;',
    'export const L = ({ u }: { u: string }) => <a href={`#${u}`}>x</a>;',
  ],
  [
    URL_ATTR,
    'javascript',
    'export const L = ({ u }) => <Link to={u}>x</Link>;',
    "export const L = ({ u }) => <Link to={'/u/' + u}>x</Link>;",
  ],
  [
    URL_ATTR,
    'javascript',
    'export const L = ({ site }) => <a href={site.url} />;',
    'export const L = () => <a href={SITE_URL} />;',
  ],
  [
    URL_ATTR,
    'typescript',
    "React.createElement('a', { href: link });",
    "React.createElement('a', { href: 'https://example.com' });",
  ],
  [CORS, 'typescript', 'app.enableCors();', "app.enableCors({ origin: 'https://app.example.com' });"],
  [CORS, 'typescript', 'app.enableCors({ origin: true });', 'app.enableCors({ origin: allowedOrigins });'],
  [
    CORS,
    'typescript',
    "const app = await NestFactory.create(AppModule, { cors: { origin: '*' } });",
    'const app = await NestFactory.create(AppModule, { cors: { origin: /\\.example\\.com$/ } });',
  ],
  [
    UNENCRYPTED,
    'typescript',
    cdkTs("new s3.Bucket(this, 'B', { enforceSSL: true, encryption: s3.BucketEncryption.UNENCRYPTED });"),
    cdkTs("new s3.Bucket(this, 'B', { enforceSSL: true });"),
  ],
  [
    'security/angular-sanitizer-bypass',
    'typescript',
    'class A {\n  set note(v: string) {\n    this.html = this.sanitizer.bypassSecurityTrustHtml(v);\n  }\n}\n',
    'class A {\n  set note(v: string) {\n    this.html = this.sanitizer.bypassSecurityTrustHtml(DOMPurify.sanitize(v));\n  }\n}\n',
  ],
  [
    UNENCRYPTED,
    'typescript',
    cdkTs("new sqs.Queue(this, 'Q', { encryption: sqs.QueueEncryption.UNENCRYPTED });"),
    cdkTs("new sqs.Queue(this, 'Q', { encryption: sqs.QueueEncryption.KMS });"),
  ],
  [
    UNENCRYPTED,
    'typescript',
    cdkTs("new rds.DatabaseCluster(this, 'D', { engine });"),
    cdkTs("new rds.DatabaseCluster(this, 'D', { engine, storageEncrypted: true });"),
  ],
  [
    UNENCRYPTED,
    'python',
    cdkPy('Bucket(self, "b", enforce_ssl=True, encryption=BucketEncryption.UNENCRYPTED)'),
    cdkPy('Bucket(self, "b", enforce_ssl=True, encryption=BucketEncryption.S3_MANAGED)'),
  ],
  [
    UNENCRYPTED,
    'python',
    cdkPy('rds.DatabaseInstance(self, "d", engine=engine, storage_encrypted=False)'),
    cdkPy('rds.DatabaseInstance(self, "d", engine=engine, storage_encrypted=True)'),
  ],
  [
    HTTP,
    'typescript',
    cdkTs("new s3.Bucket(this, 'B', { encryption: s3.BucketEncryption.S3_MANAGED });"),
    cdkTs("new s3.Bucket(this, 'B', { encryption: s3.BucketEncryption.S3_MANAGED, enforceSSL: true });"),
  ],
  [
    HTTP,
    'python',
    cdkPy('Bucket(self, "b", encryption=BucketEncryption.KMS)'),
    cdkPy('Bucket(self, "b", encryption=BucketEncryption.KMS, enforce_ssl=True)'),
  ],
  [
    PUBLIC,
    'typescript',
    cdkTs('new s3.BlockPublicAccess({ blockPublicAcls: true, blockPublicPolicy: false });'),
    cdkTs('new s3.BlockPublicAccess({ blockPublicAcls: true, blockPublicPolicy: true });'),
  ],
  [PUBLIC, 'python', cdkPy('bucket.grant_public_access("*")'), cdkPy('bucket.grant_read(role)')],
  [
    INGRESS,
    'typescript',
    cdkTs('sg.connections.allowFromAnyIpv4(ec2.Port.tcp(22));'),
    cdkTs("sg.addIngressRule(ec2.Peer.anyIpv4(), ec2.Port.tcp(443), 'https');"),
  ],
  [
    INGRESS,
    'python',
    cdkPy('sg.add_ingress_rule(ec2.Peer.any_ipv4(), ec2.Port.tcp(3306))'),
    cdkPy('sg.add_ingress_rule(ec2.Peer.ipv4(vpc.vpc_cidr_block), ec2.Port.tcp(3306))'),
  ],
  [
    HTTPONLY,
    'typescript',
    "res.cookie('sid', id, { secure: true, httpOnly: false });",
    "res.cookie('sid', id, { secure: true, httpOnly: true });",
  ],
  [
    DOTFILES,
    'javascript',
    "app.use(serveStatic('www', { dotfiles: 'allow' }));",
    "app.use(serveStatic('www', { dotfiles: 'deny' }));",
  ],
  [
    TABNAB,
    'javascript',
    "React.createElement('a', { target: '_blank', href: url });",
    "React.createElement('a', { target: '_blank', href: url, rel: 'noopener' });",
  ],
  [
    TABNAB,
    'tsx',
    'const A = () => <Link target="_blank" to={u}>x</Link>;',
    'const A = () => <a target="_blank" href="/docs">x</a>;',
  ],
  [
    BADGE,
    'python',
    cdkPy('codebuild.Project(self, "p", badge=True, source=src)'),
    cdkPy('codebuild.Project(self, "p", source=src)'),
  ],
];

describe('JavaScript/TypeScript framework rules', () => {
  for (const [index, [rule, language, vulnerable, safe]] of CASES.entries()) {
    it(`${rule} (${language}) #${index + 1}`, async () => {
      expect(await ruleIds(vulnerable, language)).toContain(rule);
      expect(await ruleIds(safe, language)).not.toContain(rule);
    });
  }

  it('a value the dataflow proves is input is reported once, as xss (high)', async () => {
    const issues = await findings(
      "const q = new URLSearchParams(location.search).get('q');\ndocument.getElementById('out').innerHTML = q;\n",
      'javascript',
    );
    expect(issues.filter((i) => i.line === 2).map((i) => [i.rule_id, i.confidence])).toEqual([
      ['security/xss', 'high'],
    ]);
  });

  it('a CDK-like class in a file that does not use the CDK is not read as one', async () => {
    expect(
      await ruleIds("const b = new Bucket(this, 'B', {});\nconst q = new Queue(this, 'Q');\n", 'typescript'),
    ).toEqual([]);
  });

  it("a bucket or queue left to the service's default encryption is a low audit, not a medium finding", async () => {
    const code = cdkTs("new s3.Bucket(this, 'B', { enforceSSL: true });\n    new sqs.Queue(this, 'Q', {});");
    const all = await analyzeSource({
      code,
      language: 'typescript',
      filename: undefined,
      analysisType: 'security',
      thresholds: DEFAULT_THRESHOLDS,
      threatModel: 'web',
      minConfidence: 'low',
    });
    const found = all.issues.filter((i) => i.rule_id.startsWith('security/cloud-data'));
    expect(found.map((i) => [i.rule_id, i.confidence])).toEqual([
      ['security/cloud-data-default-encryption', 'low'],
      ['security/cloud-data-default-encryption', 'low'],
    ]);
    expect(await ruleIds(code, 'typescript')).not.toContain(UNENCRYPTED);
  });

  it('props from a variable or a spread may set anything and are not judged', async () => {
    const ids = await ruleIds(
      cdkTs("new s3.Bucket(this, 'B', props);\nnew s3.Bucket(this, 'C', { ...defaults });"),
      'typescript',
    );
    expect(ids).not.toContain(UNENCRYPTED);
    expect(ids).not.toContain(HTTP);
  });

  it('a props object for createElement checked for its scheme in the block is not reported', async () => {
    const code =
      "function A(u) {\n  if (!u.startsWith('https://')) return null;\n  const p = { href: u };\n  return React.createElement('a', p);\n}\n";
    expect(await ruleIds(code, 'javascript')).not.toContain(URL_ATTR);
  });

  it('helmet with its CSP or frame protection off is reported, configured is not', async () => {
    expect(await ruleIds('app.use(helmet({ frameguard: false }));', 'javascript')).toContain(
      'security/helmet-protection-disabled',
    );
    expect(
      await ruleIds("app.use(helmet({ frameguard: { action: 'deny' }, hsts: false }));", 'javascript'),
    ).not.toContain('security/helmet-protection-disabled');
  });

  it('res.sendFile with a root option is not a path traversal; without one it is', async () => {
    const handler = (call: string) => `app.get('/f/:n', (req, res) => {\n  ${call}\n});\n`;
    expect(
      await ruleIds(handler("res.sendFile(req.params.n, { root: 'public' });"), 'javascript'),
    ).not.toContain('security/path-traversal');
    expect(await ruleIds(handler('res.sendFile(req.params.n);'), 'javascript')).toContain(
      'security/path-traversal',
    );
  });

  it("a message event's data written as HTML is proven input (high)", async () => {
    const issues = await findings(
      "window.addEventListener('message', (e) => {\n  box.innerHTML = e.data.html;\n});\n",
      'javascript',
    );
    expect(issues.filter((i) => i.line === 2).map((i) => [i.rule_id, i.confidence])).toEqual([
      ['security/xss', 'high'],
    ]);
    // The listener checks no origin either.
    expect(issues.filter((i) => i.line === 1).map((i) => i.rule_id)).toEqual([
      'security/postmessage-origin-unchecked',
    ]);
  });

  it("a message listener that checks the origin, or a worker's, is not reported", async () => {
    const code =
      "window.addEventListener('message', (e) => {\n  if (e.origin !== 'https://app.example.com') return;\n  render(e.data);\n});\nworker.addEventListener('message', (e) => render(e.data));\n";
    expect(await ruleIds(code, 'javascript')).not.toContain('security/postmessage-origin-unchecked');
  });

  it("a module variable holding the address's input is input in the functions that use it, not where rebound", async () => {
    const code =
      "const next = new URLSearchParams(location.search).get('next');\nfunction go() {\n  location.href = next;\n}\nfunction stay() {\n  const next = '/home';\n  location.href = next;\n}\n";
    const issues = await findings(code, 'javascript');
    expect(issues.map((i) => [i.rule_id, i.line])).toEqual([['security/open-redirect', 3]]);
  });

  it("a function's parameter sent to location is a redirect (medium); a fixed host before it is not", async () => {
    const code =
      'function go(dest) {\n  location.href = dest;\n}\nfunction docs(page) {\n  location.href = `https://docs.example.com/${page}`;\n}\n';
    const issues = await findings(code, 'javascript');
    expect(issues.map((i) => [i.rule_id, i.line, i.confidence])).toEqual([
      ['security/open-redirect', 2, 'medium'],
    ]);
  });

  it("a local named location is not the browser's", async () => {
    const code =
      'function report(node, context) {\n  const location = { line: node.line, column: 0 };\n  context.report({ node, loc: location });\n}\n';
    expect(await ruleIds(code, 'javascript')).toEqual([]);
  });
});
