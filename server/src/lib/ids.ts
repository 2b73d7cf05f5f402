import { randomBytes } from 'node:crypto';

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * `length` characters drawn uniformly from [A-Za-z0-9] with a CSPRNG.
 * Rejection sampling (bytes >= 248 are dropped) keeps every character equally likely:
 * each carries log2(62) ≈ 5.95 bits.
 */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const bytes = randomBytes(length * 2);
    for (const b of bytes) {
      if (b >= 248) continue;
      out += BASE62[b % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** Readable, unguessable ids: `acc_…`, `key_…`, `ses_…`. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBase62(20)}`;
}
