import type { FastifyInstance } from "fastify";
import { isIP } from "node:net";
import { NotFoundError } from "../../platform/errors.js";
import { requiredCompany } from "../../platform/http/company-auth.js";

declare module "fastify" {
  interface FastifySchema {
    /** OpenAPI servers of one operation (@fastify/swagger reads it; its types omit it). */
    servers?: ReadonlyArray<{ url: string; description?: string; variables?: Record<string, { default: string }> }>;
  }
}

/** The OpenAPI `servers` entry of operations served per company (`{company_base_url}`). */
export const companyServer = [
  {
    url: "https://{company}.example.com",
    description: "company_base_url: a company's server, addressed through its subdomain",
    variables: { company: { default: "acme" } },
  },
] as const;

/**
 * The company subdomain label a request's host names, or null when the host is neutral.
 * Neutral: no host, an IP address, a single-label name (localhost) and the API's own host.
 * Otherwise the first label is the candidate (`acme` of `acme.example.com:443`).
 */
export function subdomainLabel(hostname: string | undefined, neutralHosts: ReadonlySet<string>): string | null {
  if (!hostname) return null;
  const host = hostname.trim().toLowerCase();
  if (host.startsWith("[")) return null;
  const name = hostName(host);
  if (isIP(name) !== 0 || !name.includes(".") || neutralHosts.has(name)) return null;
  return name.slice(0, name.indexOf("."));
}

/**
 * A host without its port and without the trailing dot of a fully qualified name, in that order:
 * `localhost.:4112` is localhost, as `localhost.` is. The API's own host goes through it too, so
 * PUBLIC_BASE_URL written with or without the dot matches a Host written either way.
 */
function hostName(host: string): string {
  return host.replace(/:\d*$/, "").replace(/\.$/, "");
}

/**
 * Installs the company server's host check on the calling plugin's routes (after company
 * auth). The bearer token decides the company; a host that is not neutral must name the token's
 * company's subdomain, else it is a 404: a token sent to a shop it does not belong to finds
 * nothing there, and a subdomain no company has answers the same, so the answer does not tell
 * which shops exist. The label's company comes from the app's ShopDirectory, cached as for the
 * public SDK: a shop created meanwhile is found within its TTL for an unknown shop.
 */
export function useCompanyHostCheck(app: FastifyInstance): void {
  const neutralHosts = new Set([hostName(new URL(app.config.publicBaseUrl).hostname.toLowerCase())]);
  app.addHook("onRequest", async (request) => {
    const label = subdomainLabel(request.host, neutralHosts);
    if (label === null) return;
    if ((await request.server.shops.companyIdFor(label)) !== requiredCompany(request)) throw new NotFoundError();
  });
}
