-- When the order's last autoship reminder was queued: send_autoship_reminder_email queues at
-- most one per order within AUTOSHIP_REMINDER_MIN_INTERVAL_MINUTES (docs/decisions.md,
-- "Reminder email"). Read and written under the order's row lock, so concurrent calls queue one.
-- AlterTable
ALTER TABLE "subscription_orders" ADD COLUMN "reminder_queued_at" TIMESTAMPTZ(3);
