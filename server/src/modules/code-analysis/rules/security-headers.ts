import { forJs, type RuleDefinition } from './types';

/**
 * Helmet told to leave out its Content-Security-Policy or X-Frame-Options header (CodeQL
 * js/insecure-helmet-configuration, CWE-693/1021): without them an injected script runs unhindered and the pages
 * can be framed for clickjacking. A risky configuration (medium); configuring a header's options is not reported.
 */
export const SECURITY_HEADER_RULES: RuleDefinition[] = [
  {
    id: 'security/helmet-protection-disabled',
    needles: ['helmet', 'Helmet'],
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-693',
    message:
      '`{finding}` turns off one of Helmet\'s protections (a Content-Security-Policy, frame blocking); configure it instead (`contentSecurityPolicy: { directives: {…} }`, `frameguard: { action: "deny" }`).',
    languages:
      forJs(`((call_expression function: [(identifier) (member_expression)] @fn arguments: (arguments (object (pair key: (property_identifier) @k value: (false)) @finding)))
        (#match? @fn "^(helmet|helmetLib|Helmet)$") (#match? @k "^(contentSecurityPolicy|frameguard|xFrameOptions)$"))`),
  },
];
