import { KEY_PREFIXES, type KeyKind } from '@tessera/shared';
import { sha256Hex } from '../../lib/hash';
import { randomBase62 } from '../../lib/ids';

/** 32 base62 characters: about 190 bits from the CSPRNG. */
export const SECRET_LENGTH = 32;
const KEY_PATTERN = /^sk_(live|test)_([A-Za-z0-9]{32})$/;

export interface GeneratedKey {
  key: string;
  kind: KeyKind;
  hash: string;
  last4: string;
}

export function generateKey(kind: KeyKind): GeneratedKey {
  const key = `${KEY_PREFIXES[kind]}${randomBase62(SECRET_LENGTH)}`;
  return { key, kind, hash: hashKey(key), last4: key.slice(-4) };
}

export function hashKey(key: string): string {
  return sha256Hex(key);
}

/** The kind of a well-formed key, or null when the text cannot be one of ours. */
export function parseKey(text: string): { kind: KeyKind } | null {
  const match = KEY_PATTERN.exec(text);
  if (!match) return null;
  return { kind: match[1] === 'live' ? 'live' : 'test' };
}

/** A form of any presented key text that is safe to put in a message or a log. */
export function maskPresentedKey(text: string): string {
  const prefix = text.startsWith('sk_live_') ? 'sk_live_' : text.startsWith('sk_test_') ? 'sk_test_' : '';
  if (text.length < prefix.length + 12) return prefix ? `${prefix}***` : '***';
  return `${prefix}…${text.slice(-4)}`;
}
