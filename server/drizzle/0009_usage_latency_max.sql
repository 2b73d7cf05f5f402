-- Finer latency histograms (log scale, 8 buckets a doubling: modules/usage/histogram.ts) and each row's largest
-- latency. Rows written with the 13 old buckets are moved over: each old bucket's count goes to the new bucket
-- of its upper bound (the open one to the bucket just above 30 s, up to 32.8 s), and its largest non-empty bound becomes the row's maximum.
ALTER TABLE "usage_rollups" ADD COLUMN "latency_max_ms" double precision;--> statement-breakpoint
UPDATE "usage_rollups" AS u SET
	"latency_histogram" = (
		SELECT array_agg(coalesce(moved.n, 0)::integer ORDER BY s.i)
		FROM generate_series(1, 162) AS s(i)
		LEFT JOIN (
			SELECT t.target, sum(o.n) AS n
			FROM unnest(u."latency_histogram") WITH ORDINALITY AS o(n, j)
			JOIN unnest(ARRAY[44, 52, 63, 71, 79, 89, 97, 105, 116, 124, 132, 144, 145]) WITH ORDINALITY AS t(target, j)
				USING (j)
			GROUP BY t.target
		) AS moved ON moved.target = s.i
	),
	"latency_max_ms" = coalesce((
		SELECT max(t.bound)
		FROM unnest(u."latency_histogram") WITH ORDINALITY AS o(n, j)
		JOIN unnest(ARRAY[5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 32768]::double precision[])
			WITH ORDINALITY AS t(bound, j) USING (j)
		WHERE o.n > 0
	), 0)
WHERE array_length(u."latency_histogram", 1) = 13;--> statement-breakpoint
UPDATE "usage_rollups" SET "latency_max_ms" = 0 WHERE "latency_max_ms" IS NULL;--> statement-breakpoint
ALTER TABLE "usage_rollups" ALTER COLUMN "latency_max_ms" SET NOT NULL;
