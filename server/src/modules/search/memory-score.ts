import { B, idf, K1, SCORE_DIGITS, W_BODY, W_TITLE } from './bm25';
import type { QueryPlan } from './query-plan';

/**
 * BM25F as rank.ts's SQL expression computes it, in the same order of operations: per term, in the
 * plan's order, w·tf~·(k1+1)/(k1+tf~), summed (`sum(float8)` adds in row order from its first value,
 * as adding to 0 does), then rounded as the SQL rounds it (roundScore). The one difference left is
 * the field norms, which the SQL computes in numeric before converting to float8: at most an ulp,
 * far below the rounding. The per-term weights are bound in SQL as their shortest decimal text,
 * which reads back as the same double.
 */
export function termWeights(plan: QueryPlan): number[] {
  return plan.terms.map((t) => t.weight * idf(plan.n, t.df));
}

/** One term's share of a document's score, from its frequencies and field norms. */
export function termShare(weight: number, tfTitle: number, tfBody: number, tn: number, bn: number): number {
  const tfn = (W_TITLE * tfTitle) / tn + (W_BODY * tfBody) / bn;
  return (weight * tfn * (K1 + 1)) / (K1 + tfn);
}

/** A field's length norm, 1 − b + b·len/avg. */
export const fieldNorm = (length: number, average: number) => 1 - B + (B * length) / average;

const SCALE = 10n ** BigInt(SCORE_DIGITS);

/** `round(x::numeric, SCORE_DIGITS)::float8` as Postgres computes it. */
export function roundScore(x: number): number {
  if (x === 0 || !Number.isFinite(x)) return x === 0 ? 0 : x;
  // Fast path: away from a half, the 15-digit rounding (a relative change below 5e-15) cannot move
  // x·10^8 across one, so rounding x·10^8 itself decides; n / 10^8 is then correctly rounded, as
  // reading the decimal text is.
  const y = Math.abs(x) * 1e8;
  if (y < 2 ** 52) {
    const floor = Math.floor(y);
    const frac = y - floor;
    if (Math.abs(frac - 0.5) > y * 1e-13 + 1e-9) {
      const n = frac > 0.5 ? floor + 1 : floor;
      return (x < 0 ? -n : n) / 1e8;
    }
  }
  // float8 → numeric: 15 significant digits.
  const [mantissa, exp] = x.toExponential(14).split('e') as [string, string];
  const negative = mantissa.startsWith('-');
  const digits = BigInt(mantissa.replace('-', '').replace('.', ''));
  // value = digits · 10^(e − 14); scaled by 10^SCORE_DIGITS.
  const shift = Number(exp) - 14 + SCORE_DIGITS;
  let scaled: bigint;
  if (shift >= 0) scaled = digits * 10n ** BigInt(shift);
  else {
    const div = 10n ** BigInt(-shift);
    scaled = digits / div;
    // Half away from zero (on the magnitude).
    if ((digits % div) * 2n >= div) scaled += 1n;
  }
  const whole = scaled / SCALE;
  const frac = (scaled % SCALE).toString().padStart(SCORE_DIGITS, '0');
  return Number(`${negative ? '-' : ''}${whole}.${frac}`);
}
