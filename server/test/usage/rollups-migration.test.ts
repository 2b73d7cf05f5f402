import { rmSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { bucketOf, HISTOGRAM_SIZE, quantile } from '../../src/modules/usage/histogram';
import { openTestDatabase, usingPostgres } from '../helpers/database';
import { migrateWith, migrationsBefore } from '../helpers/migrations';

interface Row {
  key_id: string;
  latency_histogram: number[];
  latency_max_ms: number;
}

describe(`migration 0009 moves rollups to the fine latency buckets (${usingPostgres() ? 'PostgreSQL' : 'PGlite'})`, () => {
  it("keeps every count, places it at its old bucket's upper bound, and sets each row's maximum", async () => {
    const database = await openTestDatabase();
    const before = migrationsBefore('0009_usage_latency_max');
    try {
      const db = database.db;
      await migrateWith(db, before);
      // Old buckets: ≤5, ≤10, ≤25, ≤50, ≤100, ≤250, ≤500, ≤1000, ≤2500, ≤5000, ≤10000, ≤30000, above.
      const rows = [
        { key: 'k_tail', histogram: [0, 0, 0, 5, 0, 0, 0, 2, 0, 0, 0, 0, 1] },
        { key: 'k_fast', histogram: [3, 1, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0] },
      ];
      for (const r of rows) {
        await db.execute(sql`
          insert into usage_rollups (account_id, granularity, bucket_start, mode, key_id, method, route,
            status_class, requests, errors, latency_sum_ms, latency_histogram, token_requests, prompt_tokens,
            completion_tokens)
          values ('acct_m', 'hour', now(), 'test', ${r.key}, 'GET', '/v1/models', '2xx',
            ${r.histogram.reduce((a, b) => a + b, 0)}, 0, 1, ${`{${r.histogram.join(',')}}`}::integer[], 0, 0, 0)`);
      }
      await database.migrate();
      const result = await db.execute(
        sql`select key_id, latency_histogram, latency_max_ms from usage_rollups order by key_id`,
      );
      const got = (Array.isArray(result) ? result : (result as { rows: Row[] }).rows) as Row[];
      const fast = got.find((r) => r.key_id === 'k_fast');
      const tail = got.find((r) => r.key_id === 'k_tail');
      for (const r of [fast, tail]) expect(r?.latency_histogram).toHaveLength(HISTOGRAM_SIZE);
      expect(fast?.latency_histogram[bucketOf(5)]).toBe(3);
      expect(fast?.latency_histogram[bucketOf(10)]).toBe(1);
      expect(fast?.latency_histogram[bucketOf(50)]).toBe(4);
      expect(Number(fast?.latency_max_ms)).toBe(50);
      expect(tail?.latency_histogram[bucketOf(50)]).toBe(5);
      expect(tail?.latency_histogram[bucketOf(1_000)]).toBe(2);
      expect(tail?.latency_histogram[bucketOf(32_768)]).toBe(1);
      expect(tail?.latency_histogram.reduce((a, b) => a + b, 0)).toBe(8);
      const max = Number(tail?.latency_max_ms);
      expect(max).toBe(32_768);
      expect(quantile(tail?.latency_histogram ?? [], 1, max)).toBeLessThanOrEqual(max);
    } finally {
      rmSync(before, { recursive: true, force: true });
      await database.close();
    }
  });
});
