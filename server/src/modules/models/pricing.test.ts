import { describe, expect, it } from 'vitest';
import { writeCatalogueFile } from '../../../test/helpers/chat-setup';
import { ModelCatalogue } from './catalogue';
import { PriceTable } from './pricing';

const DAY = (date: string) => Date.parse(`${date}T00:00:00Z`);

describe('PriceTable', () => {
  const table = new PriceTable('USD', [
    [
      'gpt',
      [
        { from: '2026-01-01', input: 2.5, output: 10 },
        { from: '2026-06-01', input: 1.25, output: 5 },
      ],
    ],
  ]);

  it('prices tokens at the price in force on the request’s UTC day, in micro-units', () => {
    // 1,000 in at $2.50/M + 500 out at $10/M = $0.0025 + $0.005 = 7,500 micro-dollars.
    expect(table.costMicros('gpt', 1000, 500, DAY('2026-03-15') + 5_000)).toBe(7_500);
    // From the new price's first millisecond on, the new price; the day before keeps the old one.
    expect(table.costMicros('gpt', 1000, 500, DAY('2026-06-01'))).toBe(3_750);
    expect(table.costMicros('gpt', 1000, 500, DAY('2026-06-01') - 1)).toBe(7_500);
  });

  it('rounds each request to a whole micro-unit and says null, not 0, where there is no price', () => {
    expect(table.costMicros('gpt', 1, 0, DAY('2026-03-15'))).toBe(3); // 2.5 rounds up
    expect(table.costMicros('gpt', 0, 0, DAY('2026-03-15'))).toBe(0);
    expect(table.costMicros('gpt', 10, 10, DAY('2025-12-31'))).toBeNull();
    expect(table.costMicros('other', 10, 10, DAY('2026-03-15'))).toBeNull();
  });
});

describe('the catalogue’s prices', () => {
  const model = {
    id: 'm',
    provider: 'openai',
    upstream_model: 'gpt',
    context_window: 8192,
    max_output_tokens: 1024,
    description: 'd',
    created: 0,
  };

  it('stops start-up on a negative price, an unordered history or a bad currency, naming what is wrong', () => {
    const load = (file: unknown) => () => ModelCatalogue.fromFile(writeCatalogueFile(file));
    expect(load({ models: [{ ...model, pricing: [{ from: '2026-01-01', input: -1, output: 1 }] }] })).toThrow(
      /models\.0\.pricing\.0\.input: .*>=0/,
    );
    expect(
      load({
        models: [
          {
            ...model,
            pricing: [
              { from: '2026-06-01', input: 1, output: 1 },
              { from: '2026-01-01', input: 1, output: 1 },
            ],
          },
        ],
      }),
    ).toThrow(/models\.0\.pricing: prices must be listed by `from`, each day once/);
    expect(load({ models: [{ ...model, pricing: [{ from: '2026-13-01', input: 1, output: 1 }] }] })).toThrow(
      /models\.0\.pricing\.0\.from/,
    );
    expect(load({ currency: 'dollars', models: [model] })).toThrow(
      /currency: must be a three-letter ISO 4217 code/,
    );
  });

  it('reads the currency and the prices of the models that have them', () => {
    const catalogue = ModelCatalogue.fromFile(
      writeCatalogueFile({
        currency: 'EUR',
        models: [
          { ...model, pricing: [{ from: '2026-01-01', input: 1, output: 2 }] },
          { ...model, id: 'free' },
        ],
      }),
    );
    expect(catalogue.prices.currency).toBe('EUR');
    expect(catalogue.prices.costMicros('m', 100, 100, DAY('2026-02-01'))).toBe(300);
    expect(catalogue.prices.costMicros('free', 100, 100, DAY('2026-02-01'))).toBeNull();
  });
});
