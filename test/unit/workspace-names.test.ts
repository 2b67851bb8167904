import { describe, expect, it } from "vitest";
import { isWorkspaceId, newWorkspaceId } from "../../protocol/ids";
import { checkWorkspaceName } from "../../protocol/workspaces";
import { contentSecurityPolicy } from "../../worker/csp";

describe("checkWorkspaceName", () => {
  it("trims and accepts 1-100 characters", () => {
    expect(checkWorkspaceName("  my app ")).toEqual({ name: "my app" });
    expect(checkWorkspaceName("x".repeat(100))).toEqual({ name: "x".repeat(100) });
  });
  it("refuses empty, too long, non-string and control characters", () => {
    for (const bad of ["", "   ", "x".repeat(101), 7, null, "a\nb", "tab\there"]) {
      expect("error" in checkWorkspaceName(bad), String(bad)).toBe(true);
    }
  });
});

describe("newWorkspaceId", () => {
  it("makes distinct valid ids of 16 lowercase letters and digits", () => {
    const ids = new Set(Array.from({ length: 200 }, newWorkspaceId));
    expect(ids.size).toBe(200);
    for (const id of ids) {
      expect(id).toMatch(/^[a-z0-9]{16}$/);
      expect(isWorkspaceId(id)).toBe(true);
    }
  });
});

describe("contentSecurityPolicy", () => {
  it("frames only preview hostnames and allows inline scripts only in development", () => {
    const prod = contentSecurityPolicy(new URL("https://ide.example.com/"), "example-previews.com", false);
    expect(prod).toContain("frame-src https://*.example-previews.com");
    expect(prod).toContain("script-src 'self';");
    expect(prod).toContain("frame-ancestors 'self'");
    const dev = contentSecurityPolicy(new URL("http://localhost:5173/"), "localhost:5173", true);
    expect(dev).toContain("frame-src http://*.localhost:5173");
    expect(dev).toContain("script-src 'self' 'unsafe-inline'");
  });
});
