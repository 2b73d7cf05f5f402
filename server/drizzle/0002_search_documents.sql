CREATE TABLE "search_collections" (
	"account_id" text NOT NULL,
	"name" text NOT NULL,
	"language" text DEFAULT 'english' NOT NULL,
	"doc_count" bigint DEFAULT 0 NOT NULL,
	"title_len_sum" bigint DEFAULT 0 NOT NULL,
	"body_len_sum" bigint DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "search_collections_account_id_name_pk" PRIMARY KEY("account_id","name")
);
--> statement-breakpoint
CREATE TABLE "search_documents" (
	"account_id" text NOT NULL,
	"collection" text NOT NULL,
	"id" text NOT NULL,
	"title" text DEFAULT '' NOT NULL,
	"body" text NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"tsv" "tsvector" NOT NULL,
	"tf" jsonb NOT NULL,
	"title_len" integer NOT NULL,
	"body_len" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "search_documents_account_id_collection_id_pk" PRIMARY KEY("account_id","collection","id")
);
--> statement-breakpoint
CREATE TABLE "search_terms" (
	"account_id" text NOT NULL,
	"collection" text NOT NULL,
	"term" text NOT NULL,
	"df" integer NOT NULL,
	CONSTRAINT "search_terms_account_id_collection_term_pk" PRIMARY KEY("account_id","collection","term")
);
--> statement-breakpoint
ALTER TABLE "search_collections" ADD CONSTRAINT "search_collections_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "search_documents" ADD CONSTRAINT "search_documents_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "search_terms" ADD CONSTRAINT "search_terms_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "search_documents_tsv_idx" ON "search_documents" USING gin ("tsv");--> statement-breakpoint
CREATE INDEX "search_terms_trgm_idx" ON "search_terms" USING gin ("term" gin_trgm_ops);