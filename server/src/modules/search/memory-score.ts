import { B, idf, K1, SCORE_DIGITS, W_BODY, W_TITLE } from './bm25';
import type { QueryPlan } from './query-plan';

/**
 * BM25F as rank.ts's SQL expression computes it, in the same order of operations (per term in the
 * plan's order: w·tf~·(k1+1)/(k1+tf~), summed), then rounded as the SQL rounds it:
 * `round(score::numeric, 8)::float8`, where float8 → numeric keeps 15 significant digits (DBL_DIG)
 * and numeric's round is half away from zero. The one difference left is the field norms, which the
 * SQL computes in numeric before converting to float8: at most an ulp, below the rounding.
 */
export function scorer(plan: QueryPlan) {
  const weights = plan.terms.map((t) => Number(String(t.weight * idf(plan.n, t.df))));
  const terms = plan.terms.map((t) => t.term);
  return (tf: Map<string, [number, number]>, titleLen: number, bodyLen: number): number => {
    if (terms.length === 0) return 0;
    const tn = 1 - B + (B * titleLen) / plan.avgTitle;
    const bn = 1 - B + (B * bodyLen) / plan.avgBody;
    let sum = 0;
    let any = false;
    for (let i = 0; i < terms.length; i++) {
      const f = tf.get(terms[i] as string);
      if (!f) continue;
      const tfn = (W_TITLE * f[0]) / tn + (W_BODY * f[1]) / bn;
      const s = ((weights[i] as number) * tfn * (K1 + 1)) / (K1 + tfn);
      sum = any ? sum + s : s;
      any = true;
    }
    return roundScore(sum);
  };
}

const SCALE = 10n ** BigInt(SCORE_DIGITS);

/** `round(x::numeric, SCORE_DIGITS)::float8` as Postgres computes it. */
export function roundScore(x: number): number {
  if (x === 0 || !Number.isFinite(x)) return x === 0 ? 0 : x;
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
