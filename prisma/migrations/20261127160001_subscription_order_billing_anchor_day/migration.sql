-- An order remembers the day of month its bills fall on (Stripe's billing cycle anchor): a skip
-- by a monthly or yearly interval lands on that day, or on the month's last day when the month is
-- shorter. Skips counted from the stored date instead, so one February moved a subscription
-- billed on the 31st to the 28th for good (Jan 31 -> Feb 28 -> Mar 28).
-- An existing order's anchor is the day of its stored next_bill_date: the day it bills on now
-- (one already moved to the 28th stays there; what day it started on was not stored).
-- AlterTable
ALTER TABLE "subscription_orders" ADD COLUMN "billing_anchor_day" INTEGER;
UPDATE "subscription_orders" SET "billing_anchor_day" = EXTRACT(DAY FROM "next_bill_date");
ALTER TABLE "subscription_orders" ALTER COLUMN "billing_anchor_day" SET NOT NULL;

ALTER TABLE "subscription_orders" ADD CONSTRAINT "subscription_orders_billing_anchor_day_check" CHECK ("billing_anchor_day" BETWEEN 1 AND 31);
