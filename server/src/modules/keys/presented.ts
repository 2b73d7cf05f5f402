import { ServiceError } from '../../errors';
import { hashKey, maskPresentedKey, parseKey } from './generate';

/** The key a request presented, read once from its `Authorization` header: its text and its SHA-256. */
export interface PresentedKey {
  key: string;
  hash: string;
}

const MISSING_KEY_MESSAGE =
  "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).";

/**
 * Reads `Authorization: Bearer <key>`: 401 when it is missing, malformed, or cannot be one of our keys. Only a
 * well-formed key is hashed, and only once a request: the verifier looks the hash up, and metering attributes a
 * refused key's request to its account by the same hash.
 */
export function presentedKey(authorization: string | undefined): PresentedKey {
  const key = extractBearer(authorization);
  if (!parseKey(key)) throw invalidKey(key);
  return { key, hash: hashKey(key) };
}

function extractBearer(authorization: string | undefined): string {
  if (authorization === undefined || authorization.trim() === '') {
    throw new ServiceError('authentication', MISSING_KEY_MESSAGE, { code: 'missing_api_key' });
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (match?.[1]) return match[1];
  const scheme = /^Bearer(?:\s+(.*))?$/is.exec(authorization.trim());
  if (scheme) {
    // The scheme is right; what follows it is not one key (empty, or broken by whitespace).
    if (!scheme[1]) {
      throw new ServiceError('authentication', MISSING_KEY_MESSAGE, { code: 'missing_api_key' });
    }
    throw new ServiceError(
      'authentication',
      'The API key in the Authorization header is malformed: it contains whitespace. Keys read `sk_live_…` or `sk_test_…` with no spaces; copy the key again.',
      { code: 'invalid_api_key' },
    );
  }
  throw new ServiceError(
    'authentication',
    'The Authorization header must use the Bearer scheme: `Authorization: Bearer YOUR_KEY`.',
    { code: 'invalid_api_key' },
  );
}

/** 401 `invalid_api_key` naming the key masked: not one of ours, unknown, or revoked. */
export function invalidKey(key: string): ServiceError {
  return new ServiceError(
    'authentication',
    `Incorrect API key provided: ${maskPresentedKey(key)}. You can find your API keys in the Tessera dashboard.`,
    { code: 'invalid_api_key' },
  );
}
