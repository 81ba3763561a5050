import type { Attribution } from "./schemas.js";

/** The identities of a rep that attribution can name. */
export interface RepIdentity {
  id: number;
  email: string;
  username: string | null;
  share_guid: string | null;
  external_id: string | null;
}

export type AttributionSignal = keyof Attribution;

/** DESIGN.md's order: when several signals are sent, the first that names a known rep wins. */
const SIGNALS_BY_PRIORITY: readonly AttributionSignal[] = ["share_guid", "svc_rep_id", "email", "username", "external_id"];

/** The users column each signal names its rep by. */
const REP_COLUMN = {
  share_guid: "share_guid",
  svc_rep_id: "id",
  email: "email",
  username: "username",
  external_id: "external_id",
} as const satisfies Record<AttributionSignal, keyof RepIdentity>;

interface RepMatch {
  column: (typeof REP_COLUMN)[AttributionSignal];
  value: string | number;
}

/** Where a signal's rep is found: its column, and the value there (emails are stored lower-cased). */
export function repMatch(signal: AttributionSignal, value: string | number): RepMatch {
  return { column: REP_COLUMN[signal], value: signal === "email" ? String(value).toLowerCase() : value };
}

/** The matches of every signal sent, first the one that wins. */
export function repMatches(attribution: Attribution): RepMatch[] {
  return SIGNALS_BY_PRIORITY.flatMap((signal) => {
    const value = attribution[signal];
    return value === undefined ? [] : [repMatch(signal, value)];
  });
}

/** Picks the attributed rep among the candidates any signal matched, or null. */
export function pickAttributedRep<Rep extends RepIdentity>(attribution: Attribution, candidates: readonly Rep[]): Rep | null {
  for (const { column, value } of repMatches(attribution)) {
    const rep = candidates.find((candidate) => candidate[column] === value);
    if (rep) return rep;
  }
  return null;
}
