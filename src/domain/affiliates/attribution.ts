import type { Attribution } from "./schemas.js";

/** The identities of a rep that attribution can name. */
export interface RepIdentity {
  id: number;
  email: string;
  username: string | null;
  share_guid: string | null;
  external_id: string | null;
}

/** DESIGN.md's order: when several signals are sent, the first that names a known rep wins. */
const PRIORITY: ReadonlyArray<(attribution: Attribution, rep: RepIdentity) => boolean> = [
  (a, rep) => a.share_guid !== undefined && rep.share_guid === a.share_guid,
  (a, rep) => a.svc_rep_id !== undefined && rep.id === a.svc_rep_id,
  (a, rep) => a.email !== undefined && rep.email === a.email.toLowerCase(),
  (a, rep) => a.username !== undefined && rep.username === a.username,
  (a, rep) => a.external_id !== undefined && rep.external_id === a.external_id,
];

/** Picks the attributed rep among the candidates any signal matched, or null. */
export function pickAttributedRep<Rep extends RepIdentity>(attribution: Attribution, candidates: readonly Rep[]): Rep | null {
  for (const matches of PRIORITY) {
    const rep = candidates.find((candidate) => matches(attribution, candidate));
    if (rep) return rep;
  }
  return null;
}
