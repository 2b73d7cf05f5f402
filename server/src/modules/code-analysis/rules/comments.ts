import type { RuleDefinition } from './types';

/** Markers that say the code is known to be wrong or unfinished (SonarSource S1134, S1135; CWE-546). */
const MARKER = /(^|[^\w])(FIXME|HACK|XXX|BUG|TODO)\b\s*[:(!-]?/;

const COMMENT = '(comment) @finding';

export const COMMENT_RULES: RuleDefinition[] = [
  {
    id: 'bug/suspicious-comment',
    needles: ['FIXME', 'HACK', 'XXX', 'BUG', 'TODO'],
    category: 'bug',
    severity: 'info',
    confidence: 'medium',
    cwe: 'CWE-546',
    message:
      'This comment marks code as known to be broken or unfinished ({finding}); fix it, or track it in the issue tracker and remove the marker.',
    languages: {
      java: '[(line_comment) (block_comment)] @finding',
      javascript: COMMENT,
      typescript: COMMENT,
      tsx: COMMENT,
      python: COMMENT,
      go: COMMENT,
      c: COMMENT,
      cpp: COMMENT,
      csharp: COMMENT,
      ruby: COMMENT,
      php: COMMENT,
      rust: '[(line_comment) (block_comment)] @finding',
      kotlin: '[(line_comment) (multiline_comment)] @finding',
      swift: '[(comment) (multiline_comment)] @finding',
      scala: '[(comment) (block_comment)] @finding',
      bash: COMMENT,
    },
    check: (c) => MARKER.test(c.finding?.text ?? ''),
  },
];
