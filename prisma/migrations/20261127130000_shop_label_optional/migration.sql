-- A storefront may name its shop by the domain's first label, so a label names one company: the
-- first company with it keeps it, and a later one whose domain shares it (shop.one.example and
-- shop.two.example, acme.com and acme.de) is created without a label and named by its full
-- domain. The unique index stays: PostgreSQL lets any number of rows hold NULL under it.
-- AlterTable
ALTER TABLE "companies" ALTER COLUMN "shop_slug" DROP NOT NULL;
