import { describe, expect, it } from "vitest";
import { isSourceError, isValidHostHeader } from "../../scripts/lib/dev-server-guards.mjs";

describe("the dev server's Host check", () => {
  it("accepts host names, addresses and ports", () => {
    for (const host of [
      "localhost",
      "localhost:5173",
      "8080-ada-tok123.localhost:5173",
      "127.0.0.1:80",
      "[::1]:5173",
    ]) {
      expect(isValidHostHeader(host), host).toBe(true);
    }
    expect(isValidHostHeader(undefined)).toBe(true);
  });

  it("refuses user info, paths, spaces and broken brackets", () => {
    for (const host of [
      "a@b.localhost",
      "a:b@localhost:5173",
      "localhost/x",
      "local host",
      "[::1",
      "",
      "-a.localhost",
      "x:99999999",
    ]) {
      expect(isValidHostHeader(host), host).toBe(false);
    }
  });
});

describe("which errors keep Vite's overlay", () => {
  it("is only those that name a module of the project", () => {
    expect(isSourceError(Object.assign(new SyntaxError("Unexpected token"), { id: "/app/main.tsx" }))).toBe(true);
    expect(isSourceError(new TypeError("'TRACE' HTTP method is unsupported."))).toBe(false);
    expect(isSourceError("a string")).toBe(false);
  });
});
