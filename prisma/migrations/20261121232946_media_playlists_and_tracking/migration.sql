-- CreateTable
CREATE TABLE "media" (
    "id" SERIAL NOT NULL,
    "company_id" INTEGER NOT NULL,
    "user_id" INTEGER,
    "title" TEXT NOT NULL,
    "description" TEXT,
    "media_type" TEXT NOT NULL,
    "media_format" TEXT,
    "kind" TEXT,
    "image_url" TEXT,
    "video_url" TEXT,
    "pdf_url" TEXT,
    "powerpoint_url" TEXT,
    "share_link" TEXT,
    "preview_link" TEXT,
    "video_status" TEXT,
    "cta_url" TEXT,
    "cta_button_text" TEXT,
    "cta_action_type" TEXT,
    "canonical_url" TEXT,
    "display_tag" TEXT,
    "slug" TEXT NOT NULL,
    "custom_slug" BOOLEAN NOT NULL DEFAULT false,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "publish_at" TIMESTAMPTZ(3),
    "visibility" INTEGER,
    "views" INTEGER NOT NULL DEFAULT 0,
    "leads" INTEGER NOT NULL DEFAULT 0,
    "duration" INTEGER,
    "watch" JSONB,
    "settings" JSONB,
    "subtitles" JSONB,
    "prompts" JSONB,
    "tags" TEXT[],
    "ranks" TEXT[],
    "cta_enabled" BOOLEAN NOT NULL DEFAULT false,
    "video_shopping_enabled" BOOLEAN NOT NULL DEFAULT false,
    "prompts_enabled" BOOLEAN NOT NULL DEFAULT false,
    "display_comments" BOOLEAN NOT NULL DEFAULT false,
    "application_theme_template_id" INTEGER,
    "product_ids" INTEGER[],
    "enrollment_pack_ids" INTEGER[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "media_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "media_translations" (
    "id" SERIAL NOT NULL,
    "media_id" INTEGER NOT NULL,
    "language_iso" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "description" TEXT,

    CONSTRAINT "media_translations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "playlists" (
    "id" SERIAL NOT NULL,
    "company_id" INTEGER NOT NULL,
    "title" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "custom_slug" BOOLEAN NOT NULL DEFAULT false,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "publish_at" TIMESTAMPTZ(3),
    "product_ids" INTEGER[],
    "enrollment_pack_ids" INTEGER[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "playlists_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "playlist_items" (
    "id" SERIAL NOT NULL,
    "playlist_id" INTEGER NOT NULL,
    "media_id" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,

    CONSTRAINT "playlist_items_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "leads" (
    "id" SERIAL NOT NULL,
    "company_id" INTEGER NOT NULL,
    "source" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "contact_name" TEXT,
    "contact_email" TEXT,
    "contact_phone" TEXT,
    "contact_id" INTEGER,
    "rep_id" INTEGER,
    "svc_session" TEXT,
    "svc_shop" TEXT,
    "svc_locale" TEXT,
    "svc_journey" TEXT,
    "attribution" JSONB,
    "page_url" TEXT,
    "page_title" TEXT,
    "page_description" TEXT,
    "page_image" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "leads_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "page_visits" (
    "id" SERIAL NOT NULL,
    "company_id" INTEGER NOT NULL,
    "rep_id" INTEGER,
    "svc_session" TEXT NOT NULL,
    "svc_shop" TEXT NOT NULL,
    "svc_locale" TEXT,
    "svc_journey" TEXT,
    "attribution" JSONB,
    "url" TEXT NOT NULL,
    "title" TEXT,
    "description" TEXT,
    "image" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "page_visits_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "contacts" (
    "id" SERIAL NOT NULL,
    "company_id" INTEGER NOT NULL,
    "external_id" INTEGER NOT NULL,
    "token" TEXT,
    "first_name" TEXT,
    "last_name" TEXT,
    "full_name" TEXT,
    "avatar_url" TEXT,
    "status" TEXT,
    "email" TEXT,
    "email2" TEXT,
    "phone" TEXT,
    "phone2" TEXT,
    "phone_id" TEXT,
    "address" TEXT,
    "address2" TEXT,
    "city" TEXT,
    "state" TEXT,
    "postal_code" TEXT,
    "language_id" TEXT,
    "country_id" TEXT,
    "lead_type" TEXT,
    "ip" TEXT,
    "requested_at" TEXT,
    "best_time" TEXT,
    "time_zone" TEXT,
    "reason" TEXT,
    "income" TEXT,
    "hours" TEXT,
    "invest" TEXT,
    "interest" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "contacts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "media_company_id_created_at_idx" ON "media"("company_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "media_company_id_slug_key" ON "media"("company_id", "slug");

-- CreateIndex
CREATE UNIQUE INDEX "media_translations_media_id_language_iso_key" ON "media_translations"("media_id", "language_iso");

-- CreateIndex
CREATE INDEX "playlists_company_id_created_at_idx" ON "playlists"("company_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "playlists_company_id_slug_key" ON "playlists"("company_id", "slug");

-- CreateIndex
CREATE INDEX "playlist_items_media_id_idx" ON "playlist_items"("media_id");

-- CreateIndex
CREATE UNIQUE INDEX "playlist_items_playlist_id_position_key" ON "playlist_items"("playlist_id", "position");

-- CreateIndex
CREATE INDEX "leads_company_id_created_at_idx" ON "leads"("company_id", "created_at");

-- CreateIndex
CREATE INDEX "leads_company_id_rep_id_created_at_idx" ON "leads"("company_id", "rep_id", "created_at");

-- CreateIndex
CREATE INDEX "page_visits_company_id_created_at_idx" ON "page_visits"("company_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "contacts_company_id_external_id_key" ON "contacts"("company_id", "external_id");

-- AddForeignKey
ALTER TABLE "media" ADD CONSTRAINT "media_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "media" ADD CONSTRAINT "media_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "media_translations" ADD CONSTRAINT "media_translations_media_id_fkey" FOREIGN KEY ("media_id") REFERENCES "media"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "playlists" ADD CONSTRAINT "playlists_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "playlist_items" ADD CONSTRAINT "playlist_items_playlist_id_fkey" FOREIGN KEY ("playlist_id") REFERENCES "playlists"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "playlist_items" ADD CONSTRAINT "playlist_items_media_id_fkey" FOREIGN KEY ("media_id") REFERENCES "media"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "leads" ADD CONSTRAINT "leads_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "leads" ADD CONSTRAINT "leads_rep_id_fkey" FOREIGN KEY ("rep_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "leads" ADD CONSTRAINT "leads_contact_id_fkey" FOREIGN KEY ("contact_id") REFERENCES "contacts"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "page_visits" ADD CONSTRAINT "page_visits_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "page_visits" ADD CONSTRAINT "page_visits_rep_id_fkey" FOREIGN KEY ("rep_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "contacts" ADD CONSTRAINT "contacts_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE CASCADE ON UPDATE CASCADE;

