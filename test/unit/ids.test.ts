import { describe, expect, it } from "vitest";
import { isWorkspaceId } from "../../protocol/ids";

describe("isWorkspaceId", () => {
  it("accepts lowercase letters and digits up to a DNS label's 63 characters", () => {
    expect(isWorkspaceId("default")).toBe(true);
    expect(isWorkspaceId("a1b2c3")).toBe(true);
    expect(isWorkspaceId("x".repeat(63))).toBe(true);
  });

  it("refuses what would not be one unambiguous hostname label", () => {
    for (const bad of ["", "x".repeat(64), "Default", "my-workspace", "a.b", "a_b", "../etc", "a b", "é"]) {
      expect(isWorkspaceId(bad), bad).toBe(false);
    }
  });
});
