import { describe, expect, it } from "vitest";
import { basicAuthorization, checkHostPattern, checkPolicy, checkSecret, hostMatches, needsRestart } from "./network";

describe("host patterns", () => {
  it("accepts hostnames and *.suffix, lowercased, without a trailing dot", () => {
    expect(checkHostPattern("Registry.NPMJS.org.")).toEqual({ ok: true, value: "registry.npmjs.org" });
    expect(checkHostPattern(" *.github.com ")).toEqual({ ok: true, value: "*.github.com" });
    expect(checkHostPattern("xn--bcher-kva.example")).toMatchObject({ ok: true });
  });

  it("refuses what is not a hostname, with the reason", () => {
    const reason = (value: unknown) => {
      const checked = checkHostPattern(value);
      return checked.ok ? "accepted" : checked.reason;
    };
    expect(reason("")).toMatch(/empty/);
    expect(reason("*")).toMatch(/open mode/);
    expect(reason("https://example.com")).toMatch(/without scheme/);
    expect(reason("example.com:443")).toMatch(/port/);
    expect(reason("*foo.com")).toMatch(/wildcard/);
    expect(reason("a.*.com")).toMatch(/wildcard/);
    expect(reason("10.0.0.1")).toMatch(/IP addresses/);
    // Other spellings of addresses, as the URL parser reads them (issue 19, finding 3).
    for (const spelling of [
      "*.0.0.1",
      "*.0.1",
      "0.0.1",
      "127.1",
      "0x7f.0.0.1",
      "*.0x7f.1",
      "2130706433.a.1",
      "[::1]",
    ]) {
      expect(reason(spelling), spelling).toMatch(/IP addresses|without scheme/);
    }
    expect(reason("localhost")).toMatch(/needs a dot/);
    expect(reason("*.localhost")).toMatch(/localhost/);
    expect(reason("-bad.com")).toMatch(/letters, digits/);
    expect(reason(`${"a".repeat(64)}.com`)).toMatch(/letters, digits/);
    expect(reason(42)).toMatch(/string/);
  });

  it("matches exact names, and *.suffix only below the suffix", () => {
    expect(hostMatches("github.com", "github.com")).toBe(true);
    expect(hostMatches("github.com", "api.github.com")).toBe(false);
    expect(hostMatches("*.github.com", "api.github.com")).toBe(true);
    expect(hostMatches("*.github.com", "a.b.github.com")).toBe(true);
    expect(hostMatches("*.github.com", "github.com")).toBe(false);
    expect(hostMatches("*.github.com", "evilgithub.com")).toBe(false);
  });
});

describe("policies", () => {
  it("checks the mode and every entry, and drops duplicates", () => {
    expect(checkPolicy({ mode: "allowlist", allow: ["a.com", "A.com", "*.b.com"] })).toEqual({
      ok: true,
      value: { mode: "allowlist", allow: ["a.com", "*.b.com"] },
    });
    expect(checkPolicy({ mode: "off" })).toEqual({ ok: true, value: { mode: "off", allow: [] } });
    expect(checkPolicy({ mode: "all", allow: [] })).toMatchObject({ ok: false, reason: /mode must be one of/ });
    expect(checkPolicy({ mode: "open", allow: "a.com" })).toMatchObject({ ok: false, reason: /array/ });
    expect(checkPolicy({ mode: "allowlist", allow: ["ok.com", "bad host"] })).toMatchObject({
      ok: false,
      reason: /allow: "bad host"/,
    });
  });

  it("needs a restart only between open and the intercepted modes, on a running container", () => {
    expect(needsRestart(null, "open")).toBe(false);
    expect(needsRestart("allowlist", "off")).toBe(false);
    expect(needsRestart("off", "allowlist")).toBe(false);
    expect(needsRestart("allowlist", "open")).toBe(true);
    expect(needsRestart("open", "off")).toBe(true);
    expect(needsRestart("open", "open")).toBe(false);
  });
});

describe("secrets", () => {
  it("takes a value, hosts and a header (Authorization by default)", () => {
    expect(checkSecret({ value: "Bearer x", hosts: ["API.example.com"] })).toEqual({
      ok: true,
      value: { value: "Bearer x", hosts: ["api.example.com"], header: "Authorization" },
    });
    expect(checkSecret({ value: "k", hosts: ["*.example.com"], header: "X-Api-Key" })).toMatchObject({ ok: true });
  });

  it("is never sent to every host, nor without hosts, nor as a framing header, nor with a line break", () => {
    const reason = (body: Record<string, unknown>) => {
      const checked = checkSecret(body);
      return checked.ok ? "accepted" : checked.reason;
    };
    expect(reason({ value: "x", hosts: ["*"] })).toMatch(/never sent to every host/);
    expect(reason({ value: "x", hosts: ["a.com", " * "] })).toMatch(/never sent to every host/);
    expect(reason({ value: "x", hosts: [] })).toMatch(/at least one host/);
    expect(reason({ value: "x" })).toMatch(/array/);
    expect(reason({ value: "x", hosts: [""] })).toMatch(/empty/);
    expect(reason({ value: "", hosts: ["a.com"] })).toMatch(/non-empty/);
    expect(reason({ value: "a\nb", hosts: ["a.com"] })).toMatch(/line breaks/);
    expect(reason({ value: "x", hosts: ["a.com"], header: "Host" })).toMatch(/Host/);
    expect(reason({ value: "x", hosts: ["a.com"], header: "Bad Header" })).toMatch(/header name/);
  });

  it("makes basic auth values for git hosts", () => {
    expect(basicAuthorization("x-access-token", "abc")).toBe(`Basic ${btoa("x-access-token:abc")}`);
  });
});
