import { describe, expect, it } from "vitest";
import { pickAttributedRep, type RepIdentity } from "../../../src/domain/affiliates/attribution.js";

const rep = (id: number, tag: string): RepIdentity => ({ id, email: `${tag}@example.com`, username: tag, share_guid: `guid-${tag}`, external_id: `ext-${tag}` });
const [a, b, c, d, e] = [rep(1, "a"), rep(2, "b"), rep(3, "c"), rep(4, "d"), rep(5, "e")] as [RepIdentity, RepIdentity, RepIdentity, RepIdentity, RepIdentity];
const all = [e, d, c, b, a];

describe("pickAttributedRep", () => {
  it("matches each of the five shapes on its own", () => {
    expect(pickAttributedRep({ share_guid: "guid-a" }, all)).toBe(a);
    expect(pickAttributedRep({ svc_rep_id: 2 }, all)).toBe(b);
    expect(pickAttributedRep({ email: "C@Example.com" }, all)).toBe(c);
    expect(pickAttributedRep({ username: "d" }, all)).toBe(d);
    expect(pickAttributedRep({ external_id: "ext-e" }, all)).toBe(e);
  });

  it("prefers share_guid, then svc_rep_id, email, username, external_id", () => {
    const signals = { share_guid: "guid-a", svc_rep_id: 2, email: "c@example.com", username: "d", external_id: "ext-e" };
    expect(pickAttributedRep(signals, all)).toBe(a);
    expect(pickAttributedRep({ ...signals, share_guid: "unknown" }, all)).toBe(b);
    expect(pickAttributedRep({ ...signals, share_guid: "unknown", svc_rep_id: 99 }, all)).toBe(c);
    expect(pickAttributedRep({ ...signals, share_guid: "unknown", svc_rep_id: 99, email: "x@example.com" }, all)).toBe(d);
    expect(pickAttributedRep({ external_id: "ext-e", username: "nobody" }, all)).toBe(e);
  });

  it("returns null when no signal names a candidate", () => {
    expect(pickAttributedRep({ username: "nobody", svc_rep_id: 42 }, all)).toBeNull();
    expect(pickAttributedRep({ username: "a" }, [])).toBeNull();
  });
});
