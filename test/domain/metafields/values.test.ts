import { describe, expect, it } from "vitest";
import { valueRefusal } from "../../../src/domain/metafields/values.js";

describe("a metafield value read as its value_type", () => {
  it("takes any text as a string", () => {
    for (const value of ["", "hello", "42", "{not json"]) expect(valueRefusal("string", value)).toBeNull();
  });

  it("takes whole numbers within JavaScript's safe range as integers", () => {
    for (const value of ["0", "-7", "42", String(Number.MAX_SAFE_INTEGER)]) expect(valueRefusal("integer", value), value).toBeNull();
    for (const value of ["", "1.5", "01", "+3", " 4", "1e3", "-0x1", "9007199254740993"]) expect(valueRefusal("integer", value), value).not.toBeNull();
  });

  it('takes only "true" and "false" as booleans', () => {
    expect(valueRefusal("boolean", "true")).toBeNull();
    expect(valueRefusal("boolean", "false")).toBeNull();
    for (const value of ["TRUE", "1", "yes", ""]) expect(valueRefusal("boolean", value), value).not.toBeNull();
  });

  it("takes JSON text of any kind as json", () => {
    for (const value of ['{"a":[1,2]}', "[]", "3", '"text"', "null"]) expect(valueRefusal("json", value), value).toBeNull();
    for (const value of ["{a:1}", "", "[1,", "undefined"]) expect(valueRefusal("json", value), value).not.toBeNull();
  });
});
