/**
 * Credential formats of the common providers, as the public gitleaks catalogue and GitHub's secret scanning define
 * them: prefixes and lengths that nothing but a real key has. Each entry names the provider (for the message) and the
 * text a file must contain for the pattern to be tried.
 */
export interface SecretFormat {
  provider: string;
  pattern: RegExp;
  needles: string[];
}

export const SECRET_FORMATS: SecretFormat[] = [
  {
    provider: 'AWS access key id',
    pattern: /\b(AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z2-7]{16}\b/,
    needles: ['AKIA', 'ASIA', 'ABIA', 'ACCA', 'A3T'],
  },
  {
    provider: 'GitHub token',
    pattern: /\bgh[pousr]_[A-Za-z0-9]{36,}|\bgithub_pat_[A-Za-z0-9_]{60,}/,
    needles: ['gh', 'github_pat_'],
  },
  {
    provider: 'GitLab token',
    pattern: /\bgl(pat|ptt|dt|rt|soat|ft|cbt|imt|agent|oas)-[A-Za-z0-9_-]{20,}|\bGR1348941[A-Za-z0-9_-]{20}/,
    needles: ['gl', 'GR1348941'],
  },
  {
    provider: 'Slack token',
    pattern: /\bxox[abposre]-[A-Za-z0-9-]{10,}|\bxapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+/,
    needles: ['xox', 'xapp-'],
  },
  {
    provider: 'Slack webhook',
    pattern: /hooks\.slack\.com\/(services|workflows|triggers)\/[A-Za-z0-9+/]{20,}/,
    needles: ['hooks.slack.com'],
  },
  {
    provider: 'Stripe key',
    pattern: /\b(sk|rk)_(live|test|prod)_[A-Za-z0-9]{20,}/,
    needles: ['_live_', '_test_', '_prod_'],
  },
  {
    provider: 'Google API key or OAuth client secret',
    pattern: /\bAIza[0-9A-Za-z_-]{35}|\bGOCSPX-[A-Za-z0-9_-]{28}/,
    needles: ['AIza', 'GOCSPX-'],
  },
  {
    provider: 'OpenAI or Anthropic key',
    pattern: /\bsk-(proj-|svcacct-|admin-|ant-(api|admin)\d+-)?[A-Za-z0-9_-]{32,}/,
    needles: ['sk-'],
  },
  { provider: 'SendGrid key', pattern: /\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}/, needles: ['SG.'] },
  { provider: 'npm token', pattern: /\bnpm_[A-Za-z0-9]{36}\b/, needles: ['npm_'] },
  { provider: 'PyPI token', pattern: /\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}/, needles: ['pypi-'] },
  { provider: 'Twilio API key', pattern: /\bSK[0-9a-fA-F]{32}\b/, needles: ['SK'] },
  {
    provider: 'Azure storage account key',
    pattern: /AccountKey=[A-Za-z0-9+/]{40,}={0,2}|\b[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}\b/,
    needles: ['AccountKey=', 'Q~'],
  },
  { provider: 'Heroku API key', pattern: /\bHRKU-[A-Za-z0-9_-]{20,}/, needles: ['HRKU-'] },
  {
    provider: 'Mailgun or Mailchimp key',
    pattern: /\bkey-[0-9a-zA-Z]{32}\b|\b[0-9a-f]{32}-us\d{1,2}\b/,
    needles: ['key-', '-us'],
  },
  { provider: 'Shopify token', pattern: /\bshp(at|ca|pa|ss)_[a-fA-F0-9]{32}\b/, needles: ['shp'] },
  {
    provider: 'JSON Web Token',
    pattern: /\bey[A-Za-z0-9_-]{15,}\.ey[A-Za-z0-9_-]{15,}\.[A-Za-z0-9_-]{10,}/,
    needles: ['eyJ'],
  },
  {
    provider: 'HTTP Authorization credential',
    pattern:
      /\b(Bearer|bearer|BEARER)\s+[A-Za-z0-9_~+/.-]{20,}=*|\bBasic\s+(?=[A-Za-z0-9+/]{12,})(?=[A-Za-z0-9+/]*[a-z])[A-Za-z0-9+/][A-Za-z0-9+/]*[A-Z0-9+/][A-Za-z0-9+/]*={0,2}(?![A-Za-z0-9+/])/,
    needles: ['earer', 'EARER', 'Basic'],
  },
  {
    provider: 'Telegram bot token',
    pattern: /\b\d{8,10}:AA[A-Za-z0-9_-]{33}\b/,
    needles: [':AA'],
  },
  {
    provider: 'Square or Facebook token',
    pattern: /\bsq0(atp|csp)-[0-9A-Za-z_-]{22,43}|\bEAACEdEose0cBA[0-9A-Za-z]+/,
    needles: ['sq0', 'EAACEdEose0cBA'],
  },
  {
    provider: 'cloud platform token',
    pattern:
      /\bdo[opr]_v1_[a-f0-9]{64}\b|\bhv[sb]\.[A-Za-z0-9_-]{24,}|\b[a-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}|\bdapi[a-f0-9]{32}\b|\bdp\.(pt|st|ct|sa|scim|audit)\.[A-Za-z0-9]{40,}|\bLTAI[A-Za-z0-9]{20}\b|\bsbp_[a-f0-9]{40}\b|\bpul-[a-f0-9]{40}\b/,
    needles: ['do', 'hv', 'atlasv1', 'dapi', 'dp.', 'LTAI', 'sbp_', 'pul-'],
  },
  {
    provider: 'developer service token',
    pattern:
      /\blin_api_[A-Za-z0-9]{40}\b|\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b|\bglc_[A-Za-z0-9+/]{32,}|\bglsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}\b|\bNRAK-[A-Z0-9]{27}\b|\bAGE-SECRET-KEY-1[02-9AC-HJ-NP-Z]{58}\b|\bhf_[A-Za-z]{34}\b|\bsntry[su]_[A-Za-z0-9_=+/]{40,}|\bATATT3[A-Za-z0-9_=-]{100,}|\bpat[A-Za-z0-9]{14}\.[a-f0-9]{64}\b|\bsk\.eyJ[A-Za-z0-9._-]{60,}/,
    needles: [
      'lin_api_',
      'PMAK-',
      'glc_',
      'glsa_',
      'NRAK-',
      'AGE-SECRET-KEY-',
      'hf_',
      'sntry',
      'ATATT3',
      'pat',
      'sk.eyJ',
    ],
  },
];

/** A value too obviously made up to be anyone's password (`user:password@`, `Password=<secret>;`, `${DB_PASS}`). */
const PLACEHOLDER_PASSWORD =
  /^(\*+|x+|\.+|password|passwd|pass|pwd|secret|changeme|change_me|example|dummy|test|sample|placeholder|your[_-]?\w*|<[^>]*>|\$\{?\w+\}?|%\w+%?|\{\{?[^}]*\}?\}|\[[^\]]*\])$/i;

/**
 * A password written inside a connection string or URL: `Password=…;`, `pwd=…` in a DSN, `scheme://user:pass@host`,
 * Go's MySQL DSN `user:pass@tcp(host)/db`. Returns the password, for the placeholder test.
 */
const EMBEDDED_PASSWORD = [
  /\b(?:Password|PASSWORD|password|Pwd|PWD|pwd)\s*=\s*([^;'"\s{}$%<&]{4,})(?=\s*(;|['"`]|$|\s+\w+=|&))/,
  /\b[a-z][a-z0-9+.-]*:\/\/[^/\s:@'"]+:([^/\s:@'"$%{}<]{3,})@[^\s'"]/,
  /(?:^|['"`])[A-Za-z0-9_.-]+:([^/\s:@'"$%{}<]{3,})@(?:tcp|unix)\(/,
];

export const FORMAT_NEEDLES = [
  ...new Set([
    ...SECRET_FORMATS.flatMap((f) => f.needles),
    'assword',
    'ASSWORD',
    'wd',
    'WD',
    '://',
    '@tcp(',
    '@unix(',
  ]),
];

/** The provider whose key format the literal holds, or `connection string` for an embedded password; else undefined. */
export function secretFormat(literal: string): string | undefined {
  for (const format of SECRET_FORMATS) if (format.pattern.test(literal)) return format.provider;
  for (const pattern of EMBEDDED_PASSWORD) {
    const password = pattern.exec(literal)?.[1];
    if (password !== undefined && !PLACEHOLDER_PASSWORD.test(password))
      return 'password in a connection string or URL';
  }
  return undefined;
}

/** A PEM or PGP private key block (`-----BEGIN RSA PRIVATE KEY-----`), with a body when the literal holds its end. */
export function privateKeyBlock(literal: string): boolean {
  const begin = /-----BEGIN[ A-Z0-9]*PRIVATE KEY( BLOCK)?-----/.exec(literal);
  if (!begin) return false;
  const end = literal.indexOf('-----END', begin.index);
  if (end < 0) return true;
  const body = literal.slice(begin.index + begin[0].length, end).replace(/\\n|\s|\\r/g, '');
  return body.length >= 12 && !/^(\.+|x+|…)$/i.test(body);
}
