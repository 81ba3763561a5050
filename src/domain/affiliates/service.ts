import type { ServiceContext } from "../../platform/context.js";
import { NotFoundError } from "../../platform/errors.js";
import { httpUrl } from "../../platform/http/schemas.js";
import { pickAttributedRep, repMatches } from "./attribution.js";
import type { Affiliate, Attribution } from "./schemas.js";

const repColumns = { id: true, email: true, username: true, share_guid: true, external_id: true, first_name: true, last_name: true, image_url: true } as const;

/** One query for every rep any signal names; the priority is applied to the few candidates. */
export async function resolveRep(ctx: ServiceContext, attribution: Attribution | undefined) {
  if (!attribution) return null;
  const matches = repMatches(attribution);
  const candidates = await ctx.db.user.findMany({
    where: { company_id: ctx.companyId, role: "rep", OR: matches.map(({ column, value }) => ({ [column]: value })) },
    select: repColumns,
    take: matches.length,
  });
  return pickAttributedRep(attribution, candidates);
}

// The characters RFC 3986 allows in a URI: WHATWG URL parsing (httpUrl) also takes a space or non-ASCII text.
const URI_CHARACTERS = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]+$/;

/**
 * The Affiliate's image_url is a URI or null (seed 03, and the document's `format: uri`, which
 * generated clients may parse): a stored address that is none (a relative path, a space) is null.
 */
function uriOrNull(value: string | null): string | null {
  return value !== null && URI_CHARACTERS.test(value) && httpUrl.safeParse(value).success ? value : null;
}

export async function lookupAffiliate(ctx: ServiceContext, attribution: Attribution): Promise<Affiliate> {
  const rep = await resolveRep(ctx, attribution);
  if (!rep) throw new NotFoundError("No affiliate matches this attribution", { code: "affiliate_not_found" });
  const name = [rep.first_name, rep.last_name].filter(Boolean).join(" ");
  return {
    name: name === "" ? null : name,
    email: rep.email,
    image_url: uriOrNull(rep.image_url),
    username: rep.username,
    share_guid: rep.share_guid,
    external_id: rep.external_id,
    svc_rep_id: rep.id,
  };
}
