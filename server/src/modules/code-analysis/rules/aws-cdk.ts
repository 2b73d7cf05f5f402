import type { Captures, RuleDefinition } from './types';
import { forJs } from './types';

/**
 * AWS CDK constructs (aws-cdk-lib v2, the v1 `@aws-cdk/*` packages; TypeScript/JavaScript and Python) configured so
 * that data is kept or sent unprotected, or a resource is open to anyone, as Semgrep's aws-cdk rules and cdk-nag's
 * AwsSolutions checks read them. Risky configurations (medium). Each rule runs only in a file that names the CDK
 * (`aws-cdk-lib`, `@aws-cdk/…`, `aws_cdk`), so an application's own `Bucket` or `Queue` class is not read as one.
 */
const CDK = ['aws-cdk', 'aws_cdk'];

/** `new s3.Bucket(this, 'Id', {…})` / `s3.Bucket(self, "Id", …)`: a construct of this class, its argument list in @args. */
const construct = (classes: string) => {
  const name = JSON.stringify(`^(\\w+\\.)*(${classes})$`);
  return {
    ts: `((new_expression constructor: (_) @ctor arguments: (arguments) @args) @finding (#match? @ctor ${name}))`,
    py: `((call function: [(identifier) (attribute)] @ctor arguments: (argument_list) @args) @finding (#match? @ctor ${name}))`,
  };
};

/** A property given in the construct's props, in either language's spelling (`enforceSSL:` / `enforce_ssl=`). */
const prop = (args: string, camel: string, value = '') => {
  const snake = camel.replace(/SSL/g, 'Ssl').replace(/[A-Z]/g, (m) => `_${m.toLowerCase()}`);
  return new RegExp(`\\b(${camel}\\s*:|${snake}\\s*=)\\s*${value}`).test(args);
};

/**
 * The props are written in the call (not a variable or a spread built elsewhere, which may set anything): a call
 * with only the scope and id, or whose props object is a literal without `...`.
 */
function propsWritten(args: string): boolean {
  if (/\.\.\.|\*\*/.test(args)) return false;
  const inner = args.trim().slice(1, -1);
  // TypeScript: the props are the third argument, an object literal (or absent).
  if (!/=/.test(inner) || /\{/.test(inner)) {
    const third = inner.split(',').slice(2).join(',').trim();
    return third === '' || third.startsWith('{');
  }
  return true;
}

const both = (q: { ts: string; py: string }) => ({ ...forJs(q.ts), python: q.py });

const BUCKET = construct('Bucket');
const QUEUE = construct('Queue');
const TOPIC = construct('Topic');
const DATABASE = construct('DatabaseInstance|DatabaseCluster');

/**
 * Encryption turned off, or left out where the service's default is none (an SNS topic, an RDS instance or cluster).
 * S3 buckets (SSE-S3, since January 2023) and SQS queues (SSE-SQS, CDK's default for new queues) are encrypted at rest
 * by AWS's own key when nothing is said: that is `defaultEncryptionOnly`, a low audit for policies that want a key of
 * one's own (cdk-nag's NIST and HIPAA packs), not data left in clear.
 */
const unencrypted = (c: Captures): boolean => {
  const ctor = c.ctor?.text ?? '';
  const args = c.args?.text ?? '';
  if (/UNENCRYPTED/.test(args)) return true;
  if (prop(args, 'storageEncrypted', '(false|False)\\b')) return true;
  if (!propsWritten(args)) return false;
  if (/(Bucket|Queue)$/.test(ctor)) return false;
  if (/Topic$/.test(ctor)) return !prop(args, 'masterKey');
  return !prop(args, 'storageEncrypted') && !prop(args, 'storageEncryptionKey');
};

const defaultEncryptionOnly = (c: Captures): boolean => {
  const ctor = c.ctor?.text ?? '';
  const args = c.args?.text ?? '';
  if (!propsWritten(args) || /UNENCRYPTED/.test(args)) return false;
  if (/Bucket$/.test(ctor)) return !prop(args, 'encryption') && !prop(args, 'encryptionKey');
  if (/Queue$/.test(ctor)) return !prop(args, 'encryption') && !prop(args, 'encryptionMasterKey');
  return false;
};

export const AWS_CDK_RULES: RuleDefinition[] = [
  {
    id: 'security/cloud-data-unencrypted',
    needles: CDK,
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-311',
    message:
      '`{finding}` stores data without encryption at rest; set `encryption` (S3: `BucketEncryption.KMS_MANAGED`/`S3_MANAGED`, SQS: `QueueEncryption.KMS`), `masterKey` (SNS) or `storageEncrypted: true` (RDS).',
    languages: {
      ...both({
        ts: [BUCKET.ts, QUEUE.ts, TOPIC.ts, DATABASE.ts].join('\n'),
        py: [BUCKET.py, QUEUE.py, TOPIC.py, DATABASE.py].join('\n'),
      }),
    },
    check: unencrypted,
  },
  {
    id: 'security/cloud-data-default-encryption',
    needles: CDK,
    category: 'security',
    severity: 'low',
    confidence: 'low',
    cwe: 'CWE-311',
    message:
      "`{finding}` relies on the service's default encryption at rest, under AWS's key (S3: SSE-S3, SQS: SSE-SQS); where policy asks for a key you control, set `encryption` to KMS with your key.",
    languages: both({ ts: [BUCKET.ts, QUEUE.ts].join('\n'), py: [BUCKET.py, QUEUE.py].join('\n') }),
    check: defaultEncryptionOnly,
  },
  {
    id: 'security/cloud-storage-allows-http',
    needles: CDK,
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-319',
    message:
      '`{finding}` accepts requests over plain HTTP (no bucket policy denies `aws:SecureTransport: false`); set `enforceSSL: true`.',
    languages: both(BUCKET),
    check: (c) =>
      propsWritten(c.args?.text ?? '') && !prop(c.args?.text ?? '', 'enforceSSL', '(true|True)\\b'),
  },
  {
    // `publicReadAccess: true`, `grantPublicAccess()`, a `BlockPublicAccess` that turns a block off.
    id: 'security/cloud-storage-public',
    needles: CDK,
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-732',
    message:
      '`{finding}` makes the bucket readable by anyone on the internet; keep `BlockPublicAccess.BLOCK_ALL` and serve public files through CloudFront with origin access control.',
    languages: {
      ...forJs(`((pair key: (property_identifier) @k value: (true)) @finding (#eq? @k "publicReadAccess"))
        ((call_expression function: (member_expression property: (property_identifier) @m)) @finding (#eq? @m "grantPublicAccess"))
        ((new_expression constructor: (_) @ctor arguments: (arguments (object (pair value: (false))))) @finding (#match? @ctor "(^|\\\\.)BlockPublicAccess$"))`),
      python: `((keyword_argument name: (identifier) @k value: (true)) @finding (#eq? @k "public_read_access"))
        ((call function: (attribute attribute: (identifier) @m)) @finding (#eq? @m "grant_public_access"))
        ((call function: [(identifier) (attribute)] @ctor arguments: (argument_list (keyword_argument value: (false)))) @finding (#match? @ctor "(^|\\\\.)BlockPublicAccess$"))`,
    },
  },
  {
    // Semgrep's awscdk-codebuild-project-public: the build badge's URL shows the project's status to anyone.
    id: 'security/cloud-build-public',
    needles: CDK,
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-306',
    message:
      '`{finding}` gives the CodeBuild project a public badge URL, which shows its build status to anyone; leave `badge` off for private projects.',
    languages: {
      ...forJs(`((new_expression constructor: (_) @ctor arguments: (arguments (object (pair key: (property_identifier) @k value: (true)) @finding)))
        (#match? @ctor "(^|\\\\.)(Project|PipelineProject)$") (#eq? @k "badge"))`),
      python: `((call function: [(identifier) (attribute)] @ctor arguments: (argument_list (keyword_argument name: (identifier) @k value: (true)) @finding))
        (#match? @ctor "(^|\\\\.)(Project|PipelineProject)$") (#eq? @k "badge"))`,
    },
  },
  {
    // An ingress rule from any address (cdk-nag EC23): a database or SSH port reachable from the whole internet.
    // The web's own ports (80, 443) are what a public load balancer opens, and are not reported.
    id: 'security/cloud-ingress-from-anywhere',
    needles: CDK,
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-284',
    message:
      '`{finding}` opens the port to every address on the internet; allow the VPC, a security group or a known range instead.',
    languages: {
      ...forJs(`((call_expression function: (member_expression property: (property_identifier) @m) arguments: (arguments . (_) @peer) @args) @finding
        (#match? @m "^(addIngressRule|allowFrom|allowDefaultPortFrom)$"))
        ((call_expression function: (member_expression property: (property_identifier) @m)) @finding (#match? @m "^allow(DefaultPort)?FromAnyIpv[46]$"))`),
      python: `((call function: (attribute attribute: (identifier) @m) arguments: (argument_list . (_) @peer) @args) @finding
        (#match? @m "^(add_ingress_rule|allow_from|allow_default_port_from)$"))
        ((call function: (attribute attribute: (identifier) @m)) @finding (#match? @m "^allow(_default_port)?_from_any_ipv[46]$"))`,
    },
    check: (c) => {
      if (/\bPort\.tcp\(\s*(80|443)\s*\)/.test(c.args?.text ?? '')) return false;
      if (!c.peer) return true;
      return /Peer\.(anyIpv[46]|any_ipv[46])\(\)|Peer\.ipv[46]\(\s*['"](0\.0\.0\.0\/0|::\/0)['"]\s*\)/.test(
        c.peer.text,
      );
    },
  },
];
