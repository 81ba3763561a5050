import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import * as plans from "../../domain/subscription-plans/plans.js";
import { planCreateBody, planListQuery, planSchema, planUpdateBody } from "../../domain/subscription-plans/schemas.js";
import { actingCompanyContext, companyContext } from "../../platform/http/app-context.js";
import { envelope, listEnvelope } from "../../platform/http/envelope.js";
import { idParam, listMetaSchema, withMeta } from "../../platform/http/schemas.js";

const tags = ["Subscription plans"];
const security = [{ bearer: [] }];
const params = z.object({ id: idParam });
const planResponse = withMeta({ subscription_plan: planSchema });
const planListMeta = listMetaSchema
  .extend({ bundle_subscriptions_for_company: z.boolean().describe("The company bundles subscriptions into one order") })
  .meta({ id: "SubscriptionPlanListMeta" });

export async function subscriptionPlanRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    "/api/subscription_plans",
    {
      schema: {
        tags,
        security,
        summary: "List subscription plans (filters, search, sorting)",
        querystring: planListQuery,
        response: { 200: z.object({ subscription_plans: z.array(planSchema), meta: planListMeta }) },
      },
    },
    async (request) => {
      const result = await plans.listPlans(companyContext(request), request.query);
      const body = listEnvelope(request, { subscription_plans: result.rows }, result.pagination);
      return { ...body, meta: { ...body.meta, bundle_subscriptions_for_company: result.bundle_subscriptions_for_company } };
    },
  );

  app.post(
    "/api/subscription_plans",
    {
      schema: {
        tags,
        security,
        summary: "Create a subscription plan",
        body: planCreateBody,
        response: { 201: planResponse },
      },
    },
    async (request, reply) => {
      const created = await plans.createPlan(companyContext(request), request.body);
      return reply.code(201).send(envelope(request, { subscription_plan: created }));
    },
  );

  app.get(
    "/api/subscription_plans/:id",
    {
      schema: { tags, security, summary: "Show a subscription plan", params, response: { 200: planResponse } },
    },
    async (request) => envelope(request, { subscription_plan: await plans.getPlan(companyContext(request), request.params.id) }),
  );

  app.put(
    "/api/subscription_plans/:id",
    {
      schema: {
        tags,
        security,
        summary: "Update a subscription plan and its product links",
        description:
          "A new `price_adjustment_type` or `price_adjustment_amount` reprices the plan's subscriptions that are not cancelled, in batches after the plan's change commits; " +
          "the 200 comes once every batch has committed. A batch that fails then is answered with its error (409 `write_conflict`, 503 `database_busy` or `database_unavailable`) " +
          "although the plan's change is committed and the subscriptions of the batches before it are repriced: the same request again finishes the repricing, counts no new " +
          "price change, and answers 200.",
        params,
        body: planUpdateBody,
        response: { 200: planResponse },
      },
    },
    async (request) => {
      const updated = await plans.updatePlan(actingCompanyContext(request), request.params.id, request.body);
      return envelope(request, { subscription_plan: updated });
    },
  );

  app.delete(
    "/api/subscription_plans/:id",
    {
      schema: {
        tags,
        security,
        summary: "Delete a subscription plan; refused (409) while it has subscriptions that are not cancelled",
        params,
        response: { 200: planResponse },
      },
    },
    async (request) => envelope(request, { subscription_plan: await plans.deletePlan(companyContext(request), request.params.id) }),
  );
}
