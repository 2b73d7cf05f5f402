ALTER TABLE "usage_events" ADD COLUMN "cost_micros" bigint;--> statement-breakpoint
ALTER TABLE "usage_rollups" ADD COLUMN "cost_micros" bigint DEFAULT 0 NOT NULL;