CREATE TABLE "key_budget_periods" (
	"key_id" text NOT NULL,
	"period" text NOT NULL,
	"period_start" date NOT NULL,
	"used" bigint DEFAULT 0 NOT NULL,
	"reserved" bigint DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "key_budget_periods_key_id_period_period_start_pk" PRIMARY KEY("key_id","period","period_start"),
	CONSTRAINT "key_budget_periods_nonnegative" CHECK ("key_budget_periods"."used" >= 0 and "key_budget_periods"."reserved" >= 0)
);
--> statement-breakpoint
ALTER TABLE "allowance_reservations" ADD COLUMN "key_id" text;--> statement-breakpoint
ALTER TABLE "allowance_reservations" ADD COLUMN "key_period" text;--> statement-breakpoint
ALTER TABLE "allowance_reservations" ADD COLUMN "key_period_start" date;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "scopes" text[];--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "models" text[];--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "requests_per_minute" integer;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "budget_tokens" bigint;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "budget_period" text;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "replaced_by_id" text;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "updated_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "key_budget_periods" ADD CONSTRAINT "key_budget_periods_key_id_api_keys_id_fk" FOREIGN KEY ("key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "api_keys_updated_idx" ON "api_keys" USING btree ("updated_at");