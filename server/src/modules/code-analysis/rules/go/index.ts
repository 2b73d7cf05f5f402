import type { Finding } from '@tessera/shared';
import type { ParsedSource } from '../../parsing/parse';
import { decompressionBombs } from './archives';
import { constantNonces } from './constant-nonce';
import { contextLeaks } from './context-leaks';
import { integerConversions } from './integer-conversion';
import { secretSerialization } from './secret-serialization';
import { sliceBounds } from './slice-bounds';

/** Go analyses that read a function's statements in order rather than match one pattern (rules/go/*). */
export function goAnalyses(parsed: ParsedSource): Finding[] {
  if (parsed.language !== 'go') return [];
  return [
    ...contextLeaks(parsed),
    ...constantNonces(parsed),
    ...sliceBounds(parsed),
    ...integerConversions(parsed),
    ...decompressionBombs(parsed),
    ...secretSerialization(parsed),
  ];
}
