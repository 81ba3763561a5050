import type { FastifyInstance } from "fastify";

/**
 * Whether a POST to the route `routeUrl` (a pattern, `/api/products/:id/variants`) creates what
 * a GET route serves at `routeUrl/{id}`: then its 201 names the new resource in `Location`. Asked
 * of the router itself, so that the header and the OpenAPI document follow the routes there are.
 */
export function servesCreatedResource(app: FastifyInstance, routeUrl: string): boolean {
  const item = `${routeUrl.replace(/:[^/]+/g, "0").replace(/\/+$/, "")}/0`;
  const route = app.findRoute({ method: "GET", url: item });
  return route !== null && !("*" in route.params);
}

/** The created object's id: the body's own (`{id, ..., meta}`) or its one wrapped object's (`{product: {id}, meta}`). */
function createdId(body: unknown): string | number | undefined {
  if (body === null || typeof body !== "object") return undefined;
  const { id, meta: _meta, ...members } = body as Record<string, unknown>;
  if (typeof id === "number" || typeof id === "string") return id;
  const wrapped = Object.values(members).filter((value): value is { id: string | number } => {
    const memberId = (value as { id?: unknown } | null)?.id;
    return typeof memberId === "number" || typeof memberId === "string";
  });
  return wrapped.length === 1 ? wrapped[0]?.id : undefined;
}

/**
 * A 201 names what it created in `Location` (RFC 9110 §15.3.2: without it a client takes the
 * collection it posted to for the new resource): the request's path and the created id, as a
 * path (a relative reference, right behind any proxy), where a GET serves it. Set in onSend, so
 * that an idempotent replay, whose stored body is text, carries it too; only a 201 to a route
 * with such a GET is parsed (the public SDK's 201s are not).
 */
export function registerCreatedLocation(app: FastifyInstance): void {
  const byRoute = new Map<string, boolean>();
  // A callback hook: it runs on every response, and allocates nothing for those that are no 201.
  app.addHook("onSend", (request, reply, payload, done) => {
    const routeUrl = reply.statusCode === 201 && request.method === "POST" ? request.routeOptions.url : undefined;
    if (typeof payload === "string" && routeUrl !== undefined) {
      let serves = byRoute.get(routeUrl);
      if (serves === undefined) {
        serves = servesCreatedResource(app, routeUrl);
        byRoute.set(routeUrl, serves);
      }
      const id = serves ? createdId(parsed(payload)) : undefined;
      if (id !== undefined) {
        const path = (request.url.split("?")[0] as string).replace(/\/{2,}/g, "/").replace(/\/+$/, "");
        reply.header("location", `${path}/${encodeURIComponent(String(id))}`);
      }
    }
    done(null, payload);
  });
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
