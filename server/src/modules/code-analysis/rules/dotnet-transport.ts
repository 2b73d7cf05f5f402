import type { Finding } from '@tessera/shared';
import { locate } from '../findings';
import type { ParsedSource } from '../parsing/parse';
import { type SyntaxNode, walk } from '../parsing/tree';
import type { RuleDefinition } from './types';

/**
 * ASP.NET transport and token settings the Semgrep registry's C# rules and the Roslyn security analyzers report:
 * an `HttpListener` prefix with a wildcard host (`http://+:80/`, `http://*:80/`, `https://*.com/`), which accepts
 * any Host header and lets another program take over the port's namespace (CWE-706, Microsoft's "strong and weak
 * wildcards"; a named host or `*.example.com` is not reported); JWT validation told to accept expired tokens
 * (`ValidateLifetime = false`, `RequireExpirationTime = false`, CWE-613).
 */
export const DOTNET_TRANSPORT_RULES: RuleDefinition[] = [
  {
    id: 'security/http-listener-wildcard',
    needles: ['Prefixes'],
    category: 'security',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-706',
    message:
      '`{finding}` binds a wildcard host, so the listener answers any Host header and another process can claim the URL space; listen on the host names you serve.',
    languages: {
      csharp: `((invocation_expression function: (member_access_expression expression: (member_access_expression name: (identifier) @p) name: (identifier) @a)
                  arguments: (argument_list . (argument (string_literal) @u))) @finding
                (#eq? @p "Prefixes") (#eq? @a "Add") (#match? @u "^\\"https?://(\\\\*|\\\\+|\\\\*\\\\.[A-Za-z]+)(:[0-9]+)?(/|\\")"))`,
    },
  },
  {
    id: 'security/jwt-expiry-not-validated',
    needles: ['ValidateLifetime', 'RequireExpirationTime'],
    category: 'security',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-613',
    message:
      '`{finding}` accepts tokens whatever their expiry, so a stolen token works forever; keep ValidateLifetime (and RequireExpirationTime) true.',
    languages: {
      csharp: `((assignment_expression left: (_) @p right: (boolean_literal) @v) @finding
                (#match? @p "(^|\\\\.)(ValidateLifetime|RequireExpirationTime)$") (#eq? @v "false"))`,
    },
  },
];

const field = (n: SyntaxNode, name: string) => n.children.find((c) => c.field === name);
const text = (parsed: ParsedSource, n: SyntaxNode) => parsed.source.slice(n.startIndex, n.endIndex);

/**
 * HSTS never configured (CWE-319; Semgrep's missing-hsts-header, SonarSource S5122's sibling): a `Configure`
 * method building the pipeline (`IApplicationBuilder`/`WebApplication` parameter) that never calls `UseHsts()`,
 * reported on each `app.Use…()` step it does call, since any of them is where the missing one belongs; and a
 * `ConfigureServices` that registers services (`services.Add…()`) in a file that neither adds nor uses HSTS.
 * Browsers then keep trying `http://` first, which a network attacker can answer.
 */
export function missingHsts(parsed: ParsedSource): Finding[] {
  if (parsed.language !== 'csharp' || !/\bConfigure(Services)?\s*\(/.test(parsed.source)) return [];
  const fileHasHsts = /\b(UseHsts|AddHsts)\s*\(/.test(parsed.source);
  const out: Finding[] = [];
  walk(parsed.root, (node) => {
    if (node.type !== 'method_declaration') return true;
    const name = field(node, 'name');
    const params = field(node, 'parameters');
    const body = field(node, 'body');
    if (!name || !params || !body) return false;
    const method = text(parsed, name);
    let receiver: string | undefined;
    if (method === 'Configure' && !/\bUseHsts\s*\(/.test(text(parsed, body)))
      receiver = /\b(?:IApplicationBuilder|WebApplication)\s+(\w+)/.exec(text(parsed, params))?.[1];
    else if (method === 'ConfigureServices' && !fileHasHsts)
      receiver = /\bIServiceCollection\s+(\w+)/.exec(text(parsed, params))?.[1];
    if (!receiver) return false;
    const step = new RegExp(`^${receiver}\\.${method === 'Configure' ? 'Use' : 'Add'}\\w*$`);
    walk(body, (n) => {
      if (n.type === 'lambda_expression' || n.type === 'anonymous_method_expression') return false;
      if (n.type !== 'expression_statement') return true;
      const call = n.children.find((c) => c.named);
      const fn = call?.type === 'invocation_expression' ? field(call, 'function') : undefined;
      if (!call || !fn || !step.test(text(parsed, fn).replace(/\s+/g, ''))) return true;
      out.push({
        rule_id: 'security/hsts-not-configured',
        category: 'security',
        severity: 'low',
        confidence: 'medium',
        message: `\`${method}\` sets up the application without HTTP Strict Transport Security, so browsers keep trying plain http:// first; call ${method === 'Configure' ? 'app.UseHsts()' : 'services.AddHsts(…) and app.UseHsts()'} outside development.`,
        ...locate(parsed, call),
        cwe: 'CWE-319',
      });
      return false;
    });
    return false;
  });
  return out;
}

/**
 * More ASP.NET and .NET settings of the Semgrep registry's C# rules and PumaScan: account lockout turned off
 * (`lockoutOnFailure: false`, `Lockout.AllowedForNewUsers = false`, CWE-307), a regex
 * with no match timeout on an ASP.NET server (`Regex.InfiniteMatchTimeout`, CWE-1333), RSA encryption without OAEP
 * (`Encrypt(data, false)`, `RSAEncryptionPadding.Pkcs1`, CWE-780 read as a weak cipher), `XmlTextReader`, whose
 * defaults before .NET 4.5.2 resolve DTDs (CWE-611, not in a file that prohibits them). Directory browsing is in
 * browser.ts (directory-listing), a custom `DataContractResolver` in dotnet-config.ts.
 */
/** A certificate's subject or issuer name (`cert.SubjectName.Name`, `x509.GetNameInfo(X509NameType.SimpleName, …)`). */
const CERT_NAME =
  '(SubjectName|IssuerName)\\\\.Name$|\\\\.GetNameInfo\\\\(\\\\s*X509NameType|(Certificate|[cC]ert|x509)\\\\.(Subject|Issuer)$';

export const DOTNET_MORE_RULES: RuleDefinition[] = [
  {
    id: 'security/lockout-disabled',
    needles: ['lockoutOnFailure', 'AllowedForNewUsers'],
    category: 'security',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-307',
    message:
      '`{finding}` lets an attacker guess passwords without the account ever locking; pass lockoutOnFailure: true and keep lockout on for new users.',
    languages: {
      csharp: `((argument name: (identifier) @n (boolean_literal) @v) @finding (#eq? @n "lockoutOnFailure") (#eq? @v "false"))
        ((assignment_expression left: (member_access_expression name: (identifier) @n) right: (boolean_literal) @v) @finding
          (#eq? @n "AllowedForNewUsers") (#eq? @v "false"))`,
    },
  },
  {
    id: 'security/regex-without-timeout',
    needles: ['InfiniteMatchTimeout'],
    category: 'security',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-1333',
    message:
      '`{finding}` lets one regex match run forever on crafted input; give a finite timeout (TimeSpan.FromSeconds(1)) or RegexOptions.NonBacktracking.',
    languages: {
      csharp: `((member_access_expression expression: (identifier) @r name: (identifier) @n) @finding (#eq? @r "Regex") (#eq? @n "InfiniteMatchTimeout"))`,
    },
  },
  {
    id: 'security/rsa-without-oaep',
    needles: ['Encrypt', 'Pkcs1'],
    category: 'security',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-327',
    message:
      '`{finding}` encrypts with RSA PKCS#1 v1.5 padding, open to padding-oracle attacks (Bleichenbacher); use RSAEncryptionPadding.OaepSHA256.',
    languages: {
      csharp: `((invocation_expression function: (member_access_expression name: (identifier) @m) arguments: (argument_list (argument) . (argument (boolean_literal) @v) .)) @finding
          (#eq? @m "Encrypt") (#eq? @v "false"))
        ((member_access_expression expression: (identifier) @r name: (identifier) @n) @finding (#eq? @r "RSAEncryptionPadding") (#eq? @n "Pkcs1"))`,
    },
  },
  {
    id: 'security/xml-text-reader-dtd',
    needles: ['XmlTextReader'],
    unlessByLanguage: {
      csharp: ['DtdProcessing.Prohibit', 'DtdProcessing.Ignore', 'ProhibitDtd = true', 'XmlResolver = null'],
    },
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-611',
    message:
      '`{finding}` resolves DTDs and external entities by default before .NET 4.5.2; set DtdProcessing = DtdProcessing.Prohibit (or use XmlReader.Create with default settings).',
    languages: {
      csharp: `((object_creation_expression type: (identifier) @t) @finding (#eq? @t "XmlTextReader"))`,
    },
  },
  {
    // Semgrep's X509-subject-name-validation (after Microsoft's IssuerNameRegistry guidance): a certificate accepted
    // because its subject or issuer name equals a string proves nothing, since anyone can issue a certificate with
    // that name; its chain and thumbprint are what identify it.
    id: 'security/certificate-name-check',
    needles: ['SubjectName', 'IssuerName', 'GetNameInfo'],
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-295',
    message:
      '`{finding}` trusts a certificate because of its name, which anyone can put in a certificate; validate the chain (X509Chain.Build / Verify) and compare the thumbprint or public key of the certificate you expect.',
    languages: {
      csharp: `((binary_expression left: (_) @a right: (string_literal)) @finding (#match? @a "${CERT_NAME}"))
        ((binary_expression left: (string_literal) right: (_) @a) @finding (#match? @a "${CERT_NAME}"))
        ((invocation_expression function: (member_access_expression expression: (_) @a name: (identifier) @m) arguments: (argument_list . (argument (string_literal)) .)) @finding
          (#eq? @m "Equals") (#match? @a "${CERT_NAME}"))
        ((invocation_expression function: (member_access_expression name: (identifier) @m) arguments: (argument_list (argument (_) @a) (argument (string_literal)))) @finding
          (#eq? @m "Equals") (#match? @a "${CERT_NAME}"))
        ((invocation_expression function: (member_access_expression name: (identifier) @m) arguments: (argument_list (argument (string_literal)) (argument (_) @a))) @finding
          (#eq? @m "Equals") (#match? @a "${CERT_NAME}"))`,
    },
  },
];
