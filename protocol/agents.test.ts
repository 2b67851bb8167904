import { describe, expect, it } from "vitest";
import { agentTokenWorkspace } from "./agents";

describe("agentTokenWorkspace", () => {
  const secret = "a".repeat(64);

  it("reads the workspace a token names", () => {
    expect(agentTokenWorkspace(`cide_abc123_${secret}`)).toBe("abc123");
  });

  it("refuses anything not shaped like a token", () => {
    for (const value of [
      "",
      `cide__${secret}`,
      `cide_ABC_${secret}`,
      `cide_abc_${secret.slice(1)}`,
      `cide_abc_${secret}x`,
      `xcide_abc_${secret}`,
      `cide_a-b_${secret}`,
    ]) {
      expect(agentTokenWorkspace(value)).toBeUndefined();
    }
  });
});
