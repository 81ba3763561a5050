import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { createPaypalClient } from "../../domain/payments/paypal-client.js";
import { authorizePaypal, startPaypalApproval } from "../../domain/subscription-orders/paypal.js";
import { sendAutoshipReminder } from "../../domain/subscription-orders/reminders.js";
import {
  activityView,
  authorizePaypalQuery,
  cancellationFeedbackBody,
  shippingAddressBody,
  subscriptionOrderActivitiesQuery,
  subscriptionOrderCreateBody,
  subscriptionOrderIdParams,
  subscriptionOrderListItem,
  subscriptionOrderListQuery,
  subscriptionOrderRetrieveParams,
  subscriptionOrderShown,
  subscriptionOrderStatsQuery,
  subscriptionOrderUpdateBody,
  updatePaymentBody,
} from "../../domain/subscription-orders/schemas.js";
import * as orders from "../../domain/subscription-orders/service.js";
import { actingCompanyContext, companyContext } from "../../platform/http/app-context.js";
import { envelope, listEnvelope, meta } from "../../platform/http/envelope.js";
import { metaSchema, withListMeta, withMeta } from "../../platform/http/schemas.js";
import { stateChangingGet } from "../../platform/http/state-changing-get.js";

const tags = ["Subscription orders"];
const security = [{ bearer: [] }];
const params = subscriptionOrderIdParams;
const orderResponse = withMeta({ subscription_order: subscriptionOrderShown });

export async function subscriptionOrderRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const paypal = createPaypalClient(fastify.config.paypal);

  app.get(
    "/api/v2/subscription_orders",
    {
      schema: {
        tags,
        security,
        summary: "List subscription orders, soonest next bill first",
        querystring: subscriptionOrderListQuery,
        response: {
          200: z.object({
            subscription_orders: z.array(subscriptionOrderListItem),
            meta: metaSchema.extend({ total_count: z.number().int(), total_pages: z.number().int(), current_page: z.number().int() }),
          }),
        },
      },
    },
    async (request) => {
      const result = await orders.listSubscriptionOrders(companyContext(request), request.query);
      const { total_count, total_pages, current_page } = result.pagination;
      return { subscription_orders: result.rows, meta: { ...meta(request), total_count, total_pages, current_page } };
    },
  );

  app.get(
    "/api/v2/subscription_orders/stats",
    {
      schema: {
        tags,
        security,
        operationId: "getSubscriptionOrderStats",
        summary: "Count subscription orders by status, with the list's filters",
        querystring: subscriptionOrderStatsQuery,
        response: {
          200: withMeta({
            subscriptions_count: z.number().int(),
            active_subscriptions_count: z.number().int(),
            cancelled_subscriptions_count: z.number().int(),
            pending_subscriptions_count: z.number().int(),
            paused_subscriptions_count: z.number().int(),
            past_due_subscriptions_count: z.number().int(),
          }),
        },
      },
    },
    async (request) => {
      return envelope(request, await orders.subscriptionOrderStats(companyContext(request), request.query));
    },
  );

  app.post(
    "/api/v2/subscription_orders",
    {
      schema: {
        tags,
        security,
        summary: "Create a subscription order (import, or from checkout)",
        body: subscriptionOrderCreateBody,
        response: { 201: orderResponse },
      },
    },
    async (request, reply) => {
      const created = await orders.createSubscriptionOrder(actingCompanyContext(request), request.body.subscription_order);
      return reply.code(201).send(envelope(request, { subscription_order: created }));
    },
  );

  app.get(
    "/api/v2/subscription_orders/:id",
    {
      schema: { tags, security, summary: "Show a subscription order, by id or by order number", params: subscriptionOrderRetrieveParams, response: { 200: orderResponse } },
    },
    async (request) => envelope(request, { subscription_order: await orders.getSubscriptionOrder(companyContext(request), request.params.id) }),
  );

  app.get(
    "/api/v2/subscription_orders/:id/activities",
    {
      schema: {
        tags,
        security,
        summary: "List a subscription order's activities, oldest first: its whole history (the order shows the most recent)",
        params,
        querystring: subscriptionOrderActivitiesQuery,
        response: { 200: withListMeta({ activities: z.array(activityView) }) },
      },
    },
    async (request) => {
      const result = await orders.listOrderActivities(companyContext(request), request.params.id, request.query);
      return listEnvelope(request, { activities: result.rows }, result.pagination);
    },
  );

  app.patch(
    "/api/v2/subscription_orders/:id",
    {
      schema: {
        tags,
        security,
        summary: "Replace the items (update: true saves; otherwise previews the repriced order)",
        params,
        body: subscriptionOrderUpdateBody,
        response: { 200: orderResponse },
      },
    },
    async (request) =>
      envelope(request, { subscription_order: await orders.updateSubscriptionItems(actingCompanyContext(request), request.params.id, request.body) }),
  );

  app.patch(
    "/api/v2/subscription_orders/:id/update_shipping_address",
    {
      schema: { tags, security, summary: "Change the ship-to address (reprices the order)", params, body: shippingAddressBody, response: { 200: orderResponse } },
    },
    async (request) =>
      envelope(request, { subscription_order: await orders.updateShippingAddress(actingCompanyContext(request), request.params.id, request.body.address) }),
  );

  app.patch(
    "/api/v2/subscription_orders/:id/update_payment",
    {
      schema: {
        tags,
        security,
        summary: "Change the payment method: a saved card at once, or PayPal after the buyer approves",
        params,
        body: updatePaymentBody,
        response: { 200: z.union([orderResponse, withMeta({ payer_action_url: z.url().describe("Send the buyer here to approve PayPal") })]) },
      },
    },
    async (request) => {
      const body = request.body;
      if (body.payment_method === "paypal") {
        return envelope(request, await startPaypalApproval(actingCompanyContext(request), paypal, request.params.id, body));
      }
      return envelope(request, { subscription_order: await orders.useSavedCard(actingCompanyContext(request), request.params.id, body.card_id) });
    },
  );

  app.patch(
    "/api/v2/subscription_orders/:id/skip_order",
    { schema: { tags, security, summary: "Skip the next order: the next bill moves one billing interval later", params, response: { 200: orderResponse } } },
    async (request) => envelope(request, { subscription_order: await orders.skipOrder(actingCompanyContext(request), request.params.id) }),
  );

  app.patch(
    "/api/v2/subscription_orders/:id/cancel_subscription",
    { schema: { tags, security, summary: "Cancel the subscription", params, response: { 200: orderResponse } } },
    async (request) => envelope(request, { subscription_order: await orders.cancelSubscription(actingCompanyContext(request), request.params.id) }),
  );

  app.patch(
    "/api/v2/subscription_orders/:id/cancellation_feedback",
    {
      schema: { tags, security, summary: "Record why the customer cancels", params, body: cancellationFeedbackBody, response: { 200: orderResponse } },
    },
    async (request) =>
      envelope(request, { subscription_order: await orders.recordCancellationFeedback(actingCompanyContext(request), request.params.id, request.body) }),
  );

  app.get(
    "/api/v2/subscription_orders/:id/authorize_paypal",
    {
      ...stateChangingGet,
      schema: {
        tags,
        security,
        summary: "Complete a PayPal approval: the approved account becomes the order's payment method",
        params,
        querystring: authorizePaypalQuery,
        response: { 200: orderResponse },
      },
    },
    async (request) =>
      envelope(request, { subscription_order: await authorizePaypal(actingCompanyContext(request), paypal, request.params.id, request.query.token) }),
  );

  app.patch(
    "/api/v2/subscription_orders/:id/send_autoship_reminder_email",
    {
      schema: {
        tags,
        security,
        summary: "Queue the autoship reminder email to the customer",
        description:
          "At most one reminder per order within AUTOSHIP_REMINDER_MIN_INTERVAL_MINUTES (a day by default): another within it is a 429 `reminder_throttled` whose Retry-After says when the next is accepted, and queues nothing.",
        params,
        response: { 200: withMeta({ id: z.number().int().describe("The queued email's id") }) },
      },
    },
    async (request) =>
      envelope(request, await sendAutoshipReminder(actingCompanyContext(request), request.params.id, { minIntervalMs: fastify.config.autoshipReminderMinIntervalMs })),
  );
}
