CREATE TABLE "allowance_periods" (
	"account_id" text NOT NULL,
	"period_start" date NOT NULL,
	"used" bigint DEFAULT 0 NOT NULL,
	"reserved" bigint DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "allowance_periods_account_id_period_start_pk" PRIMARY KEY("account_id","period_start"),
	CONSTRAINT "allowance_periods_nonnegative" CHECK ("allowance_periods"."used" >= 0 and "allowance_periods"."reserved" >= 0)
);
--> statement-breakpoint
ALTER TABLE "allowance_periods" ADD CONSTRAINT "allowance_periods_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;