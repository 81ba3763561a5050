-- CreateTable
CREATE TABLE "company_countries" (
    "id" SERIAL NOT NULL,
    "company_id" INTEGER NOT NULL,
    "country_id" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "company_countries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "agreements" (
    "id" SERIAL NOT NULL,
    "company_id" INTEGER NOT NULL,
    "title" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "show_at_checkout" BOOLEAN NOT NULL DEFAULT false,
    "default_checked" BOOLEAN NOT NULL DEFAULT false,
    "required_on_checkout" BOOLEAN NOT NULL DEFAULT false,
    "required" BOOLEAN NOT NULL DEFAULT false,
    "enrollment_pack_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "agreements_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "agreement_translations" (
    "id" SERIAL NOT NULL,
    "agreement_id" INTEGER NOT NULL,
    "language_iso" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "agreement_translations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "agreement_attachments" (
    "id" SERIAL NOT NULL,
    "agreement_id" INTEGER NOT NULL,
    "url" TEXT NOT NULL,
    "filename" TEXT,
    "kind" TEXT,
    "content_type" TEXT,
    "content_size" BIGINT,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "agreement_attachments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "agreement_countries" (
    "agreement_id" INTEGER NOT NULL,
    "company_country_id" INTEGER NOT NULL,

    CONSTRAINT "agreement_countries_pkey" PRIMARY KEY ("agreement_id","company_country_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "company_countries_company_id_country_id_key" ON "company_countries"("company_id", "country_id");

-- CreateIndex
CREATE INDEX "agreements_company_id_created_at_idx" ON "agreements"("company_id", "created_at");

-- CreateIndex
CREATE INDEX "agreements_enrollment_pack_id_idx" ON "agreements"("enrollment_pack_id");

-- CreateIndex
CREATE UNIQUE INDEX "agreement_translations_agreement_id_language_iso_key" ON "agreement_translations"("agreement_id", "language_iso");

-- CreateIndex
CREATE INDEX "agreement_attachments_agreement_id_idx" ON "agreement_attachments"("agreement_id");

-- CreateIndex
CREATE INDEX "agreement_countries_company_country_id_idx" ON "agreement_countries"("company_country_id");

-- AddForeignKey
ALTER TABLE "company_countries" ADD CONSTRAINT "company_countries_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "company_countries" ADD CONSTRAINT "company_countries_country_id_fkey" FOREIGN KEY ("country_id") REFERENCES "countries"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "agreements" ADD CONSTRAINT "agreements_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "agreements" ADD CONSTRAINT "agreements_enrollment_pack_id_fkey" FOREIGN KEY ("enrollment_pack_id") REFERENCES "enrollment_packs"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "agreement_translations" ADD CONSTRAINT "agreement_translations_agreement_id_fkey" FOREIGN KEY ("agreement_id") REFERENCES "agreements"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "agreement_translations" ADD CONSTRAINT "agreement_translations_language_iso_fkey" FOREIGN KEY ("language_iso") REFERENCES "languages"("iso") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "agreement_attachments" ADD CONSTRAINT "agreement_attachments_agreement_id_fkey" FOREIGN KEY ("agreement_id") REFERENCES "agreements"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "agreement_countries" ADD CONSTRAINT "agreement_countries_agreement_id_fkey" FOREIGN KEY ("agreement_id") REFERENCES "agreements"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "agreement_countries" ADD CONSTRAINT "agreement_countries_company_country_id_fkey" FOREIGN KEY ("company_country_id") REFERENCES "company_countries"("id") ON DELETE CASCADE ON UPDATE CASCADE;
