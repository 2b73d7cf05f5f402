import { randomBytes } from 'node:crypto';

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Base62's characters as their (ASCII) codes, to write into a buffer. */
const CODES = Buffer.from(BASE62, 'latin1');
/** Where ids are written before they become a string: one string made per id, whatever its length. */
const SCRATCH = Buffer.allocUnsafeSlow(256);

/**
 * `prefix` (ASCII) then `length` characters drawn uniformly from [A-Za-z0-9] with a CSPRNG.
 * Rejection sampling (bytes >= 248 are dropped) keeps every character equally likely:
 * each carries log2(62) ≈ 5.95 bits.
 * The characters are written as bytes and read out as one string: built with `+=` a character at a time, an id
 * made a string per character (and the prefix one more), ~1 KB of garbage a request for its request id and
 * completion id on the hot path.
 */
export function randomBase62(length: number, prefix = ''): string {
  const size = prefix.length + length;
  const out = size <= SCRATCH.length ? SCRATCH : Buffer.allocUnsafe(size);
  let at = prefix.length === 0 ? 0 : out.write(prefix, 0, 'latin1');
  while (at < size) {
    const b = nextRandomByte();
    if (b >= 248) continue;
    out[at++] = CODES[b % 62] as number;
  }
  return out.toString('latin1', 0, size);
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
  return randomBase62(20, `${prefix}_`);
}
