CREATE TABLE "allowance_reservations" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"period_start" date NOT NULL,
	"tokens" bigint NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"released" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
ALTER TABLE "allowance_reservations" ADD CONSTRAINT "allowance_reservations_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "allowance_reservations_expires_idx" ON "allowance_reservations" USING btree ("expires_at");