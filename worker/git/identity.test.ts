import { describe, expect, it } from "vitest";
import { ownerIdentity } from "./identity";

describe("ownerIdentity", () => {
  it("takes an Access user's email and its local part", () => {
    expect(ownerIdentity("ada@example.com")).toEqual({ name: "ada", email: "ada@example.com" });
  });
  it("makes a password user's email up under .invalid", () => {
    expect(ownerIdentity("owner")).toEqual({ name: "owner", email: "owner@cloud-ide.invalid" });
  });
});
