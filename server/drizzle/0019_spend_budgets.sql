CREATE TABLE "budget_alerts" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"scope" text NOT NULL,
	"subject_id" text NOT NULL,
	"period" text NOT NULL,
	"period_start" date NOT NULL,
	"threshold_percent" integer NOT NULL,
	"amount_micros" bigint NOT NULL,
	"used_micros" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "spend_budgets" (
	"account_id" text NOT NULL,
	"scope" text NOT NULL,
	"subject_id" text NOT NULL,
	"amount_micros" bigint NOT NULL,
	"period" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "spend_budgets_account_id_scope_subject_id_pk" PRIMARY KEY("account_id","scope","subject_id"),
	CONSTRAINT "spend_budgets_amount_positive" CHECK ("spend_budgets"."amount_micros" > 0)
);
--> statement-breakpoint
CREATE TABLE "spend_holds" (
	"reservation_id" text NOT NULL,
	"account_id" text NOT NULL,
	"scope" text NOT NULL,
	"subject_id" text NOT NULL,
	"period" text NOT NULL,
	"period_start" date NOT NULL,
	"micros" bigint NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"released" boolean DEFAULT false NOT NULL,
	CONSTRAINT "spend_holds_reservation_id_scope_pk" PRIMARY KEY("reservation_id","scope")
);
--> statement-breakpoint
CREATE TABLE "spend_periods" (
	"account_id" text NOT NULL,
	"scope" text NOT NULL,
	"subject_id" text NOT NULL,
	"period" text NOT NULL,
	"period_start" date NOT NULL,
	"used_micros" bigint DEFAULT 0 NOT NULL,
	"reserved_micros" bigint DEFAULT 0 NOT NULL,
	"alerted_percent" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "spend_periods_account_id_scope_subject_id_period_period_start_pk" PRIMARY KEY("account_id","scope","subject_id","period","period_start"),
	CONSTRAINT "spend_periods_nonnegative" CHECK ("spend_periods"."used_micros" >= 0 and "spend_periods"."reserved_micros" >= 0)
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"event_type" text NOT NULL,
	"payload" text NOT NULL,
	"url" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_attempt_at" timestamp with time zone,
	"last_status_code" integer,
	"last_error" text,
	"delivered_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_endpoints" (
	"account_id" text PRIMARY KEY NOT NULL,
	"url" text NOT NULL,
	"secret" text NOT NULL,
	"secret_last4" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "spend_budgets" ADD CONSTRAINT "spend_budgets_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "budget_alerts_once_idx" ON "budget_alerts" USING btree ("account_id","scope","subject_id","period","period_start","threshold_percent");--> statement-breakpoint
CREATE INDEX "budget_alerts_account_idx" ON "budget_alerts" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE INDEX "spend_holds_expires_idx" ON "spend_holds" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_due_idx" ON "webhook_deliveries" USING btree ("next_attempt_at") WHERE "webhook_deliveries"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "webhook_deliveries_account_idx" ON "webhook_deliveries" USING btree ("account_id","created_at");