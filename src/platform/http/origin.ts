/** A browser origin: how `Origin` writes it, and its parts. */
interface Origin {
  /** scheme://host[:port], in lower case, the scheme's default port left out. */
  serialized: string;
  scheme: "https" | "http";
  /** The host name as the URL parser gives it (an IPv6 address in brackets). */
  hostname: string;
}

/**
 * An http(s) URL that names an origin and nothing more (a trailing slash allowed): no user
 * info, path, query or fragment. Null for anything else, `null` (the origin of sandboxed frames
 * and data: URLs) included. The `Origin` header is the serialized form: compare `serialized`
 * with it to accept no other spelling.
 */
export function parseOrigin(text: string): Origin | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  if (url.username !== "" || url.password !== "" || url.pathname !== "/" || url.search !== "" || url.hash !== "") return null;
  return { serialized: url.origin, scheme: url.protocol === "https:" ? "https" : "http", hostname: url.hostname };
}
