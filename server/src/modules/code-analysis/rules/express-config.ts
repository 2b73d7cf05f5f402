import { forJs, type RuleDefinition } from './types';

/**
 * Express and its middleware configured to expose what they protect by default: a cookie readable by the page's
 * scripts (`httpOnly: false`, Semgrep express-cookie-session-no-httponly, CWE-1004) and static files whose names
 * start with a dot (`.env`, `.git/config`) served (`dotfiles: 'allow'`, CWE-538). Risky configurations (medium).
 */
export const EXPRESS_CONFIG_RULES: RuleDefinition[] = [
  {
    id: 'security/cookie-without-httponly',
    needles: ['httpOnly', 'httponly'],
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-1004',
    message:
      "`{finding}` lets the page's scripts read the cookie, so one injected script steals the session; leave `httpOnly: true` (the default of express-session and cookie-session).",
    languages: forJs(
      `((pair key: [(property_identifier) (string)] @k value: (false)) @finding (#match? @k "^['\\"]?(httpOnly|httponly)['\\"]?$"))`,
    ),
  },
  {
    id: 'security/static-serves-dotfiles',
    needles: ['dotfiles'],
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-538',
    message:
      '`{finding}` serves files whose names start with a dot (`.env`, `.git/config`, `.htpasswd`) to anyone who asks; keep the default (`ignore`) or `deny`.',
    languages:
      forJs(`((pair key: [(property_identifier) (string)] @k value: (string (string_fragment) @v)) @finding
      (#match? @k "^['\\"]?dotfiles['\\"]?$") (#eq? @v "allow"))`),
  },
];
