import type { RuleDefinition } from './types';

/** Rails controller declarations Brakeman reports: filters skipped by deny-list, verb checks a HEAD request passes. */
export const RAILS_CONTROLLER_RULES: RuleDefinition[] = [
  {
    // Brakeman's SkipBeforeFilter: skipping authentication for every action `except` some leaves each action added
    // later without it; `only:` names the public ones.
    id: 'security/auth-filter-skipped',
    needles: ['skip_'],
    category: 'security',
    severity: 'high',
    confidence: 'medium',
    cwe: 'CWE-287',
    message:
      '`{finding}` turns authentication off for every action but the ones listed, so any action added later is public; list the public actions with `only:` instead.',
    languages: {
      ruby: `((call method: (identifier) @m arguments: (argument_list . (simple_symbol) @f (pair key: [(simple_symbol) (hash_key_symbol)] @k))) @finding
               (#match? @m "^(skip_before_filter|skip_before_action|skip_filter|skip_action_callback)$")
               (#match? @f "^:(login_required|require_login|require_user|require_admin|authenticate\\\\w*|authorize\\\\w*|ensure_(logged_in|authenticated|signed_in)\\\\w*|check_(login|auth|authentication|authorization)\\\\w*)[!?]?$")
               (#match? @k "^:?except$"))`,
    },
  },
  {
    // Brakeman's VerbConfusion: Rails routes HEAD to GET actions but `request.get?` is false for it, so the `else`
    // branch meant for POST runs on a HEAD request too.
    id: 'security/http-verb-confusion',
    needles: ['request.get?'],
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-650',
    message:
      '`{finding}` treats every request that is not a GET as a POST, but a HEAD request also reaches the `else` branch; test `request.post?` for the state-changing branch.',
    languages: {
      ruby: `((if condition: (call receiver: (identifier) @r method: (identifier) @m) alternative: (else)) @finding
               (#eq? @r "request") (#eq? @m "get?"))`,
    },
  },
];
