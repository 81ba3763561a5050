import { ownerCompanyCountry, ownerEnrollmentPack, unique } from "./admin-resources.js";
import type { TeachingContext, Teachings } from "./types.js";

/** An active agreement of the owner, shown at checkout in the US, with an attachment and its pack. */
async function ownerAgreement(ctx: TeachingContext): Promise<{ id: number; title: string }> {
  const title = unique("Terms");
  const response = await ctx.call("POST", "/api/agreements", {
    token: ctx.owner.token,
    body: {
      agreement: {
        title,
        description: "<p>Terms of sale</p>",
        show_at_checkout: true,
        enrollment_pack_id: (await ownerEnrollmentPack(ctx)).id,
        company_country_ids: [await ownerCompanyCountry(ctx, "US")],
        attachments_attributes: [{ url: "https://cdn.example.com/terms.pdf", filename: "terms.pdf" }],
      },
    },
  });
  if (response.status !== 201) throw new Error(`could not create an agreement: ${response.status} ${response.text}`);
  return { id: response.body.agreement.id, title };
}

export const agreementTeachings: Teachings = {
  "GET /api/agreements": {
    async setup(ctx) {
      const agreement = await ownerAgreement(ctx);
      return { query: { per_page: "100", status: "active" }, markers: [agreement.title] };
    },
    isolation: { expect: "own_rows_only" },
  },
  "POST /api/agreements": {
    async setup(ctx) {
      return {
        query: { language_iso: "fr" },
        body: {
          agreement: {
            title: unique("Privacy"),
            description: "<p>Privacy</p>",
            enrollment_pack_id: (await ownerEnrollmentPack(ctx)).id,
            company_country_ids: [await ownerCompanyCountry(ctx, "CA")],
          },
        },
      };
    },
    isolation: { expect: "foreign_reference", fields: ["agreement.enrollment_pack_id", "agreement.company_country_ids"] },
  },
  "DELETE /api/agreements/bulk_delete": {
    async setup(ctx) {
      const [first, second] = [await ownerAgreement(ctx), await ownerAgreement(ctx)];
      return { body: { agreement_ids: [first.id, second.id] }, markers: [first.title, second.title] };
    },
    isolation: { expect: "foreign_reference", fields: ["agreement_ids"] },
  },
  "POST /api/agreements/bulk_clone": {
    async setup(ctx) {
      const [first, second] = [await ownerAgreement(ctx), await ownerAgreement(ctx)];
      return { body: { agreement_ids: [first.id, second.id] }, markers: [first.title, second.title] };
    },
    isolation: { expect: "foreign_reference", fields: ["agreement_ids"] },
  },
  "GET /api/agreements/{id}": {
    // Active, so readable without a token at all; another company's token still reads only its own.
    async setup(ctx) {
      const agreement = await ownerAgreement(ctx);
      return { params: { id: String(agreement.id) }, query: { language_iso: "en" }, markers: [agreement.title] };
    },
    isolation: { expect: "not_found" },
  },
  "PUT /api/agreements/{id}": {
    async setup(ctx) {
      const agreement = await ownerAgreement(ctx);
      return {
        params: { id: String(agreement.id) },
        query: { language_iso: "fr" },
        body: { agreement: { title: unique("Conditions"), description: "<p>Conditions de vente</p>", active: false, attachments_attributes: [{ url: "https://cdn.example.com/fr.pdf" }] } },
        markers: [agreement.title],
      };
    },
    isolation: { expect: "not_found" },
  },
  "DELETE /api/agreements/{id}": {
    async setup(ctx) {
      const agreement = await ownerAgreement(ctx);
      return { params: { id: String(agreement.id) }, markers: [agreement.title] };
    },
    isolation: { expect: "not_found" },
  },
  "POST /api/agreements/{id}/clone": {
    async setup(ctx) {
      const agreement = await ownerAgreement(ctx);
      return { params: { id: String(agreement.id) }, markers: [agreement.title] };
    },
    isolation: { expect: "not_found" },
  },
};
