/** One request of a scenario, as both load generators (autocannon, the paced round's) send it. */
export interface RequestSpec {
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export function headersOf(spec: RequestSpec): Record<string, string> {
  return { "content-type": "application/json", ...spec.headers };
}

export function bodyOf(spec: RequestSpec): string | undefined {
  return spec.body === undefined ? undefined : JSON.stringify(spec.body);
}
