import { z } from 'zod';

/**
 * A model's prices from one UTC day on, per million tokens in the catalogue's currency. Prices change: a new
 * entry with a later `from` takes over from that day, and usage before it keeps the price it had, since a
 * request's cost is fixed when it is metered.
 */
export const PriceEntry = z.object({
  /** The first UTC day (YYYY-MM-DD) the price is in force. */
  from: z.iso.date(),
  input: z.number().nonnegative().finite(),
  output: z.number().nonnegative().finite(),
});
export type PriceEntry = z.infer<typeof PriceEntry>;

/** A model's price history: days strictly increasing, so that each day has one price. */
export const PriceHistory = z
  .array(PriceEntry)
  .min(1)
  .refine((entries) => entries.every((e, i) => i === 0 || (entries[i - 1]?.from ?? '') < e.from), {
    error: 'prices must be listed by `from`, each day once',
  });

/** ISO 4217 code of the currency prices and costs are in (USD by default). */
export const Currency = z.string().regex(/^[A-Z]{3}$/, { error: 'must be a three-letter ISO 4217 code' });

/** Costs are integers of a millionth of the currency unit: exact sums, no floating-point drift in totals. */
export const MICROS_PER_UNIT = 1_000_000;

const DAY_MS = 86_400_000;

/** The prices of each model by day, compiled once; what metering asks for every request's cost. */
export class PriceTable {
  /** Per model: each entry's first millisecond, and its prices, newest first. */
  private readonly byModel = new Map<string, { fromMs: number; entry: PriceEntry }[]>();

  constructor(
    readonly currency: string,
    prices: Iterable<[model: string, history: readonly PriceEntry[]]>,
  ) {
    for (const [model, history] of prices) {
      const compiled = history.map((entry) => ({ fromMs: Date.parse(`${entry.from}T00:00:00Z`), entry }));
      this.byModel.set(model, compiled.reverse());
    }
  }

  /**
   * What `promptTokens` in and `completionTokens` out of `model` cost at `atMs`, in micro-units; null when the
   * model has no price then (unpriced, or before its first price), which is not the same as free.
   * A price per million tokens is a price per token in micro-units, so the product needs no scaling.
   */
  costMicros(model: string, promptTokens: number, completionTokens: number, atMs: number): number | null {
    const history = this.byModel.get(model);
    if (!history) return null;
    const day = Math.floor(atMs / DAY_MS) * DAY_MS;
    const price = history.find((h) => h.fromMs <= day)?.entry;
    if (!price) return null;
    return Math.round(promptTokens * price.input + completionTokens * price.output);
  }
}
