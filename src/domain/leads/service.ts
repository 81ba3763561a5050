import type { Prisma } from "../../generated/prisma/client.js";
import type { ServiceContext } from "../../platform/context.js";
import { type Page, type PageRequest, pageWindow, pagination } from "../../platform/http/pagination.js";
import { createdRange } from "./date-range.js";
import { CONTACT_STRING_KEYS, type CompanyContactInput, type CompanyLeadInput, type LeadListQuery, type LeadView } from "./schemas.js";

const withRepAndContact = {
  rep: { select: { id: true, email: true, first_name: true, last_name: true } },
  contact: { select: { external_id: true } },
} as const;

type LeadRow = Prisma.LeadGetPayload<{ include: typeof withRepAndContact }>;
type ContactRow = Prisma.ContactGetPayload<object>;

function fullName(first: string | null, last: string | null): string | null {
  const name = [first, last].filter(Boolean).join(" ");
  return name === "" ? null : name;
}

function toLeadView(row: LeadRow): LeadView {
  return {
    id: row.id,
    source: row.source as LeadView["source"],
    message: row.message,
    contact: { name: row.contact_name, email: row.contact_email, phone: row.contact_phone },
    contact_id: row.contact?.external_id ?? null,
    rep: row.rep ? { id: row.rep.id, name: fullName(row.rep.first_name, row.rep.last_name), email: row.rep.email } : null,
    svc_session: row.svc_session,
    svc_shop: row.svc_shop,
    svc_locale: row.svc_locale,
    svc_journey: row.svc_journey,
    attribution: (row.attribution as Record<string, unknown> | null) ?? null,
    page: row.page_url ? { url: row.page_url, title: row.page_title, description: row.page_description, image: row.page_image } : null,
    created_at: row.created_at.toISOString(),
  };
}

function toContactView(row: ContactRow) {
  const strings = Object.fromEntries(CONTACT_STRING_KEYS.map((key) => [key, row[key]])) as Record<(typeof CONTACT_STRING_KEYS)[number], string | null>;
  return { id: row.external_id, ...strings, created_at: row.created_at.toISOString(), updated_at: row.updated_at.toISOString() };
}

export async function listLeads(ctx: ServiceContext, query: LeadListQuery): Promise<Page<LeadView>> {
  const where: Prisma.LeadWhereInput = {
    company_id: ctx.companyId,
    ...(query.rep_id !== undefined ? { rep_id: query.rep_id } : {}),
    ...(query.from !== undefined || query.to !== undefined ? { created_at: createdRange(query.from, query.to) } : {}),
  };
  const page: PageRequest = { page: query.page, per_page: query.per_page };
  const [rows, total] = await Promise.all([
    ctx.db.lead.findMany({ where, include: withRepAndContact, orderBy: [{ created_at: "desc" }, { id: "desc" }], ...pageWindow(page) }),
    ctx.db.lead.count({ where }),
  ]);
  return { rows: rows.map(toLeadView), pagination: pagination(page, total) };
}

/** Only the members the request carries: an update leaves the others as they are. */
function contactColumns(contact: CompanyContactInput) {
  const { id: _externalId, ...members } = contact;
  return Object.fromEntries(Object.entries(members).filter(([, value]) => value !== undefined)) as Partial<Record<(typeof CONTACT_STRING_KEYS)[number], string | null>>;
}

/**
 * A company server's lead: creates or updates its contact (matched by the server's contact id)
 * and stores the lead, in one transaction so a lead never points at a half-written contact.
 */
export async function captureCompanyLead(ctx: ServiceContext, input: CompanyLeadInput) {
  const { contact } = input.lead;
  const columns = contactColumns(contact);
  return ctx.db.$transaction(async (tx) => {
    const contactRow = await tx.contact.upsert({
      where: { company_id_external_id: { company_id: ctx.companyId, external_id: contact.id } },
      create: { company_id: ctx.companyId, external_id: contact.id, ...columns },
      update: columns,
    });
    // A server without a full name may send "" for it (seed 03 types it a string): the lead then
    // shows the first and last names rather than no name.
    const name = contactRow.full_name?.trim() || fullName(contactRow.first_name, contactRow.last_name);
    const lead = await tx.lead.create({
      data: {
        company_id: ctx.companyId,
        source: "company",
        message: input.lead.message,
        contact_id: contactRow.id,
        contact_name: name,
        contact_email: contactRow.email?.toLowerCase() ?? null,
        contact_phone: contactRow.phone,
        page_url: input.page?.url ?? null,
        page_title: input.page?.title ?? null,
        page_description: input.page?.description ?? null,
        page_image: input.page?.image ?? null,
        created_at: ctx.clock.now(),
      },
      include: withRepAndContact,
    });
    return { lead: toLeadView(lead), contact: toContactView(contactRow) };
  });
}
