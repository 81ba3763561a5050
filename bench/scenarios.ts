import type { Scenario } from "./measure.js";
import { referenceName } from "./report.js";
import type { BenchData } from "./seed.js";

export function referenceScenarios(data: BenchData): Scenario[] {
  let writes = 0;
  return [
    { name: referenceName("constant"), reference: null, next: () => ({ method: "GET", path: "/__bench/constant" }) },
    { name: referenceName("pk-read"), reference: null, next: () => ({ method: "GET", path: `/__bench/pk-read/${data.companyId}` }) },
    { name: referenceName("insert"), reference: null, next: () => ({ method: "POST", path: "/__bench/insert", body: { n: writes++ } }) },
  ];
}

export function surfaceScenarios(data: BenchData): Scenario[] {
  const auth = { authorization: `Bearer ${data.token}` };
  return [{ name: "GET /api/droplet_installations", reference: "pk-read", next: () => ({ method: "GET", path: "/api/droplet_installations", headers: auth }) }];
}
