import type { Measurement } from "./measure.js";

const REFERENCE_NAMES: Record<string, string> = {
  constant: "reference: constant JSON",
  "pk-read": "reference: pg primary-key read",
  insert: "reference: pg single-row INSERT",
};

export function referenceName(reference: string): string {
  return REFERENCE_NAMES[reference] ?? reference;
}

/** The ratio of a scenario's throughput to its reference's, both measured in this run. */
export function ratio(measurement: Measurement, all: Measurement[]): number | null {
  if (!measurement.reference) return null;
  const reference = all.find((m) => m.name === referenceName(measurement.reference as string));
  return reference ? Math.round((measurement.requestsPerSecond / reference.requestsPerSecond) * 100) / 100 : null;
}

/** How far the slowest hundredth of answers is from the typical one, the target for a paced round. */
function tailRatio(measurement: Measurement): number {
  return Math.round((measurement.p99Ms / measurement.p50Ms) * 10) / 10;
}

export function markdownTable(measurements: Measurement[]): string {
  const header = "| scenario | req/s | p50 ms | p99 ms | non-2xx | errors | ELU | peak RSS MB | ratio |";
  const rule = "|---|---:|---:|---:|---:|---:|---:|---:|---|";
  const rows = measurements.map((m) => {
    const r = ratio(m, measurements);
    const ratioText = m.paced ? `p99 ${tailRatio(m)}x p50` : r === null ? "" : `${r} of ${m.reference}`;
    return `| ${m.name} | ${m.requestsPerSecond} | ${m.p50Ms} | ${m.p99Ms} | ${m.non2xx} | ${m.errors} | ${m.eventLoopUtilization} | ${m.peakRssMb} | ${ratioText} |`;
  });
  return [header, rule, ...rows].join("\n");
}
