DROP INDEX "usage_events_occurred_idx";--> statement-breakpoint
CREATE INDEX "usage_events_occurred_brin" ON "usage_events" USING brin ("occurred_at");