ALTER TABLE "api_keys" ADD COLUMN "cache_ttl_seconds" integer;--> statement-breakpoint
ALTER TABLE "usage_events" ADD COLUMN "cache" text;--> statement-breakpoint
ALTER TABLE "usage_events" ADD COLUMN "saved_micros" bigint;--> statement-breakpoint
ALTER TABLE "usage_rollups" ADD COLUMN "cache_hits" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_rollups" ADD COLUMN "cache_misses" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_rollups" ADD COLUMN "saved_micros" bigint DEFAULT 0 NOT NULL;