CREATE TABLE "usage_events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "usage_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"occurred_at" timestamp with time zone NOT NULL,
	"request_id" text NOT NULL,
	"account_id" text NOT NULL,
	"key_id" text NOT NULL,
	"mode" text NOT NULL,
	"method" text NOT NULL,
	"route" text NOT NULL,
	"status" smallint NOT NULL,
	"latency_ms" real NOT NULL,
	"model" text,
	"prompt_tokens" integer,
	"completion_tokens" integer,
	"error_type" text,
	"error_code" text,
	"error_message" text
);
--> statement-breakpoint
CREATE TABLE "usage_rollups" (
	"account_id" text NOT NULL,
	"granularity" text NOT NULL,
	"bucket_start" timestamp with time zone NOT NULL,
	"mode" text NOT NULL,
	"key_id" text NOT NULL,
	"method" text NOT NULL,
	"route" text NOT NULL,
	"status_class" text NOT NULL,
	"requests" integer NOT NULL,
	"errors" integer NOT NULL,
	"latency_sum_ms" double precision NOT NULL,
	"latency_histogram" integer[] NOT NULL,
	"token_requests" integer NOT NULL,
	"prompt_tokens" bigint NOT NULL,
	"completion_tokens" bigint NOT NULL,
	CONSTRAINT "usage_rollups_pk" PRIMARY KEY("account_id","granularity","bucket_start","mode","key_id","method","route","status_class"),
	CONSTRAINT "usage_rollups_granularity_check" CHECK ("usage_rollups"."granularity" in ('minute', 'hour'))
);
--> statement-breakpoint
CREATE INDEX "usage_events_errors_idx" ON "usage_events" USING btree ("account_id","occurred_at" DESC NULLS LAST,"id" DESC NULLS LAST) WHERE "usage_events"."status" >= 400;--> statement-breakpoint
CREATE INDEX "usage_events_occurred_idx" ON "usage_events" USING btree ("occurred_at");