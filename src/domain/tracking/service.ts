import type { ServiceContext } from "../../platform/context.js";
import { newSessionId } from "../../platform/ids.js";
import { resolveRep } from "../affiliates/service.js";
import type { EventStore } from "./event-store.js";
import type { LeadInput, RequestMetadata, UrlPage } from "./schemas.js";

/** A shop's service context plus the group-committing store events are written through. */
export interface TrackingContext extends ServiceContext {
  events: EventStore;
}

/**
 * A new visitor session of the context's shop: its ss_ id. Nothing is stored (the events that
 * carry the id are); asking for the shop's context first is what makes an unknown shop a 404.
 */
export function startSession(_shop: ServiceContext): string {
  return newSessionId();
}

function sessionColumns(metadata: RequestMetadata) {
  return {
    svc_session: metadata.svc_session,
    svc_shop: metadata.svc_shop,
    svc_locale: metadata.svc_locale ?? null,
    svc_journey: metadata.svc_journey ?? null,
    attribution: metadata.attribution ?? null,
  };
}

/** Stores a storefront lead, attributed to the rep the metadata names (if any). */
export async function captureLead(ctx: TrackingContext, lead: LeadInput, page: UrlPage | undefined, metadata: RequestMetadata): Promise<{ id: number }> {
  const rep = await resolveRep(ctx, metadata.attribution);
  return ctx.events.insertLead({
    company_id: ctx.companyId,
    source: "public",
    message: lead.message,
    contact_name: lead.contact.name,
    contact_email: lead.contact.email?.toLowerCase() ?? null,
    contact_phone: lead.contact.phone ?? null,
    rep_id: rep?.id ?? null,
    ...sessionColumns(metadata),
    page_url: page?.url ?? null,
    page_title: page?.title ?? null,
    page_description: page?.description ?? null,
    page_image: page?.image ?? null,
    created_at: ctx.clock.now(),
  });
}

export async function recordPageVisit(ctx: TrackingContext, page: UrlPage, metadata: RequestMetadata): Promise<{ id: number }> {
  const rep = await resolveRep(ctx, metadata.attribution);
  const { svc_session, svc_shop, ...rest } = sessionColumns(metadata);
  return ctx.events.insertPageVisit({
    company_id: ctx.companyId,
    rep_id: rep?.id ?? null,
    svc_session,
    svc_shop,
    ...rest,
    url: page.url,
    title: page.title ?? null,
    description: page.description ?? null,
    image: page.image ?? null,
    created_at: ctx.clock.now(),
  });
}
