import { describe, expect, it } from "vitest";
import { INSTANCE_TYPES as LOCAL_TYPES } from "../../scripts/lib/instance-types.mjs";
import { sandboxInstanceType } from "./instance-type";

describe("the sandbox's instance type", () => {
  it("is one the platform knows, and one the local engine can limit to", () => {
    for (const name of Object.keys(LOCAL_TYPES)) expect(sandboxInstanceType(name)).toBe(name);
  });

  it("refuses a name the platform does not know, saying which it does", () => {
    expect(() => sandboxInstanceType("huge")).toThrow(/lite, basic, standard-1, standard-2, standard-3, standard-4/);
    expect(() => sandboxInstanceType(undefined)).toThrow(/SANDBOX_INSTANCE_TYPE is undefined/);
  });
});
