-- authorize_paypal claims an approval ("authorizing") while it asks PayPal, so that concurrent
-- calls with the same token wait for its outcome; the claim lapses at claimed_until.
-- AlterTable
ALTER TABLE "paypal_approvals" ADD COLUMN "claimed_until" TIMESTAMPTZ(3);
