import { describe, expect, it } from "vitest";
import { MACHINES } from "../../protocol/workspace";
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

  it("offers as machine sizes (protocol MACHINES) only types the platform knows, with the local engine's vCPU and memory", () => {
    expect(Object.keys(MACHINES)).toEqual(["standard-1", "standard-2", "standard-3", "standard-4"]);
    for (const [name, spec] of Object.entries(MACHINES)) {
      expect(sandboxInstanceType(name)).toBe(name);
      const local = LOCAL_TYPES[name as keyof typeof LOCAL_TYPES];
      expect({ name, vcpu: spec.vcpu, memoryMib: spec.memoryGiB * 1024 }).toEqual({ name, ...local });
    }
  });
});
