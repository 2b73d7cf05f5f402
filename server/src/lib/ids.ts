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
    const b = nextRandomByte();
    if (b >= 248) continue;
    out += BASE62[b % 62];
  }
  return out;
}

/**
 * CSPRNG bytes drawn 4 KB at a time (as Node does for randomUUID): one system call per ~150 ids instead of
 * one per id, on every request's path. Each byte is used once.
 */
const POOL_SIZE = 4_096;
let pool = randomBytes(POOL_SIZE);
let offset = 0;

function nextRandomByte(): number {
  if (offset === POOL_SIZE) {
    pool = randomBytes(POOL_SIZE);
    offset = 0;
  }
  const b = pool[offset] as number;
  offset += 1;
  return b;
}

/** Readable, unguessable ids: `acc_…`, `key_…`, `ses_…`. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBase62(20)}`;
}
