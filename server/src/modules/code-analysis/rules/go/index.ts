import type { Finding } from '@tessera/shared';
import type { ParsedSource } from '../../parsing/parse';
import { decompressionBombs } from './archives';
import { redirectHeaderLeaks } from './client-redirects';
import { constantNonces } from './constant-nonce';
import { contextLeaks } from './context-leaks';
import { httpMessages } from './http-messages';
import { integerConversions } from './integer-conversion';
import { secretSerialization } from './secret-serialization';
import { sliceBounds } from './slice-bounds';
import { sshAuthState } from './ssh-auth-state';
import { uncheckedErrors } from './unchecked-errors';
import { walkRaces } from './walk-races';

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
    ...httpMessages(parsed),
    ...redirectHeaderLeaks(parsed),
    ...sshAuthState(parsed),
    ...walkRaces(parsed),
    ...uncheckedErrors(parsed),
  ];
}
