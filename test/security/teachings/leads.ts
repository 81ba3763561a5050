import { captureCompanyLead } from "../../../src/domain/leads/service.js";
import { systemClock } from "../../../src/platform/clock.js";
import { unique } from "./admin-resources.js";
import type { Teachings } from "./types.js";

export const leadTeachings: Teachings = {
  "GET /api/leads": {
    // Leads arrive from the company server or the public SDK (taught with those surfaces): made here through the service.
    async setup(ctx) {
      const message = unique("Call me");
      const email = `${unique("lead")}@example.com`;
      await captureCompanyLead(
        { db: ctx.db, clock: systemClock, companyId: ctx.owner.id },
        { lead: { message, contact: { id: Math.floor(Math.random() * 2_000_000_000) + 1, email, full_name: unique("Lead") } } },
      );
      return { query: { per_page: "100", from: "2000-01-01" }, markers: [message, email] };
    },
    isolation: { expect: "own_rows_only" },
  },
};
