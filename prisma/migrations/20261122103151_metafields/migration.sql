-- CreateTable
CREATE TABLE "metafields" (
    "id" SERIAL NOT NULL,
    "company_id" INTEGER NOT NULL,
    "media_id" INTEGER,
    "playlist_id" INTEGER,
    "namespace" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "value_type" TEXT NOT NULL,
    "description" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "metafields_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "metafields_company_id_id_idx" ON "metafields"("company_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "metafields_media_id_namespace_key_key" ON "metafields"("media_id", "namespace", "key");

-- CreateIndex
CREATE UNIQUE INDEX "metafields_playlist_id_namespace_key_key" ON "metafields"("playlist_id", "namespace", "key");

-- AddForeignKey
ALTER TABLE "metafields" ADD CONSTRAINT "metafields_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "metafields" ADD CONSTRAINT "metafields_media_id_fkey" FOREIGN KEY ("media_id") REFERENCES "media"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "metafields" ADD CONSTRAINT "metafields_playlist_id_fkey" FOREIGN KEY ("playlist_id") REFERENCES "playlists"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- A metafield belongs to exactly one owner.
ALTER TABLE "metafields" ADD CONSTRAINT "metafields_one_owner" CHECK (num_nonnulls("media_id", "playlist_id") = 1);
