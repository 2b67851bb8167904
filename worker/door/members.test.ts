import { describe, expect, it } from "vitest";
import { parseMembers, roleOf } from "./members";

describe("roleOf", () => {
  it("is owner for the owner, the member's role for a member, none for anyone else", () => {
    const members = parseMembers({ val: "viewer", eve: "editor", sneaky: "owner", junk: 3 });
    expect(members).toEqual({ val: "viewer", eve: "editor" });
    expect(roleOf("ann", "ann", members)).toBe("owner");
    expect(roleOf("val", "ann", members)).toBe("viewer");
    expect(roleOf("eve", "ann", members)).toBe("editor");
    expect(roleOf("sneaky", "ann", members)).toBeUndefined();
    expect(roleOf("toString", "ann", members)).toBeUndefined();
    expect(roleOf("", "ann", members)).toBeUndefined();
    // A workspace nobody created (or one deleted) has nobody.
    expect(roleOf("val", undefined, members)).toBeUndefined();
  });
});
