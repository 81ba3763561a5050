import { describe, expect, it } from "vitest";
import type { Measurement } from "../../bench/measure.js";
import { markdownTable } from "../../bench/report.js";

// The table is what a reader of docs/performance.md compares against the targets: a peak round's
// row gives its throughput as a share of its reference's, a paced round's row how far its p99 is
// from its p50.

function measurement(overrides: Partial<Measurement> & Pick<Measurement, "name">): Measurement {
  return { reference: null, paced: false, requestsPerSecond: 1000, p50Ms: 1, p99Ms: 4, non2xx: 0, errors: 0, eventLoopUtilization: 0.9, peakRssMb: 250, ...overrides };
}

describe("the bench's table", () => {
  const rows = markdownTable([
    measurement({ name: "reference: pg primary-key read", requestsPerSecond: 4000 }),
    measurement({ name: "reference: pg primary-key read at half peak rate", paced: true, requestsPerSecond: 2000, p50Ms: 0.9, p99Ms: 7.2 }),
    measurement({ name: "GET /api/carts/{token}", reference: "pk-read", requestsPerSecond: 6000 }),
    measurement({ name: "GET /api/carts/{token} at half peak rate", reference: "pk-read", paced: true, requestsPerSecond: 3000, p50Ms: 1.02, p99Ms: 13.13 }),
  ]).split("\n");
  const ratioOf = (name: string) => rows.find((row) => row.startsWith(`| ${name} |`))?.split("|").at(-2)?.trim();

  it("gives a peak round's throughput as a share of its reference's", () => {
    expect(ratioOf("GET /api/carts/{token}")).toBe("1.5 of pk-read");
    expect(ratioOf("reference: pg primary-key read")).toBe("");
  });

  it("gives a paced round's p99 as a multiple of its p50, references included", () => {
    expect(ratioOf("GET /api/carts/{token} at half peak rate")).toBe("p99 12.9x p50");
    expect(ratioOf("reference: pg primary-key read at half peak rate")).toBe("p99 8x p50");
  });
});
