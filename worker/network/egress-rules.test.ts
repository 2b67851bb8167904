import { describe, expect, it } from "vitest";
import { decide, type EgressRules } from "./egress-rules";

const rules = (mode: EgressRules["mode"], allow: string[] = []): EgressRules => ({
  version: 1,
  mode,
  allow,
  secrets: [{ name: "TOKEN", header: "Authorization", value: "Bearer s", hosts: ["*.0.0.1", "api.example.com"] }],
});

describe("the Outbound entrypoint's decision", () => {
  it("never lets a request to an address or a localhost name through, in any mode (issue 19)", () => {
    const targets = [
      "http://127.0.0.1:9229/json/list",
      "http://0x7f.0.0.1/",
      "http://2130706433/",
      "http://127.1:5173/",
      "https://127.0.0.1/",
      "http://[::1]:9229/",
      "http://169.254.169.254/latest/meta-data/",
      "http://10.0.0.1/",
      "http://localhost:5173/",
      "http://ide.localhost:5173/",
    ];
    for (const mode of ["open", "allowlist", "off"] as const) {
      for (const target of targets) {
        const decision = decide(rules(mode, ["*.0.0.1", "api.example.com"]), new URL(target));
        expect(decision, `${mode} ${target}`).toMatchObject({ allow: false });
      }
    }
  });

  it("still lets hostnames through as the mode says, with their secrets on HTTPS", () => {
    expect(decide(rules("open"), new URL("http://example.org/"))).toMatchObject({ allow: true, logged: false });
    expect(decide(rules("allowlist", ["api.example.com"]), new URL("https://api.example.com/"))).toMatchObject({
      allow: true,
      secrets: ["TOKEN"],
    });
    expect(decide(rules("off"), new URL("https://api.example.com/"))).toMatchObject({ allow: false });
  });
});
