import { describe, expect, it } from "vitest";
import { hasRepeatedHost } from "../../scripts/lib/dev-server-guards.mjs";
import { graphKeys, sourceRequestKind } from "../../scripts/lib/ide-sources-guard.mjs";

/** A checkout with a few files (public/ has boot-retry.js). */
const fileOf = (path: string) =>
  path === "/boot-retry.js"
    ? "public"
    : ["/README.md", "/.dev.vars", "/app/main.tsx", "/app/api/http.ts", "/worker/index.ts"].includes(path)
      ? "checkout"
      : undefined;

describe("what the IDE's dev server serves of its checkout (issue 42, findings 3 and 6)", () => {
  it("refuses tests, other folders' tricks, Vite's editor launcher and unknown internals", () => {
    for (const url of [
      "/app/api/http.test.ts",
      "/app/api/http.test.ts?import",
      "/protocol/network.test.ts",
      "/app/__tests__/x.ts",
      "/app/../.dev.vars",
      "/app/%2e%2e/.dev.vars",
      "/app/%2E%2E/.dev.vars",
      "/app/..%2f.dev.vars",
      "/./README.md",
      "//etc/passwd",
      "/a%00b",
      "/app\\..\\README.md",
      "/%E0%A4%A",
      "/__open-in-editor?file=README.md",
      "/@vite-plugin-checker",
    ]) {
      expect(sourceRequestKind(url, fileOf), url).toBe("refuse");
    }
  });

  it("looks up files of the checkout and Vite's module paths in the page's module graph", () => {
    for (const url of [
      "/README.md",
      "/.dev.vars",
      "/.dev.vars?raw",
      "/worker/index.ts",
      "/app/api/http.ts?import&t=1",
      "/@fs/etc/passwd",
      "/@id/vitest",
      "/node_modules/vite/package.json",
    ]) {
      expect(sourceRequestKind(url, fileOf), url).toBe("graph");
    }
  });

  it("passes the page, Vite's client, bundled dependencies, public/ and whatever is the Worker's", () => {
    for (const url of [
      "/",
      "/workspaces/abc",
      "/api/health",
      "/ws/workspaces/abc/terminals/main",
      "/index.html",
      "/app/main.tsx",
      "/app/main.tsx?t=2",
      "/@vite/client",
      "/@react-refresh",
      "/node_modules/.vite/deps/react.js?v=1a2b",
      "/boot-retry.js",
    ]) {
      expect(sourceRequestKind(url, fileOf), url).toBe("pass");
    }
  });

  it("finds a request under the graph's keys: without import and t, then without direct and used", () => {
    expect(graphKeys("/app/x.tsx")).toEqual(["/app/x.tsx"]);
    expect(graphKeys("/app/x.tsx?import&t=1712")).toEqual(["/app/x.tsx"]);
    expect(graphKeys("/app/x.css?direct&t=5")).toEqual(["/app/x.css?direct", "/app/x.css"]);
    expect(graphKeys("/node_modules/.pnpm/a/b.js?v=9")).toEqual(["/node_modules/.pnpm/a/b.js?v=9"]);
    expect(graphKeys("/@id/__x00__virtual:x")).toEqual(["\0virtual:x"]);
    expect(graphKeys("/@id/vitest")).toEqual(["vitest"]);
  });
});

describe("two Host headers (issue 42, finding 4)", () => {
  it("are told apart from one, whatever their case", () => {
    expect(hasRepeatedHost(["Host", "localhost:5173", "Accept", "*/*"])).toBe(false);
    expect(hasRepeatedHost(["Host", "localhost:5173", "host", "localhost:5173"])).toBe(true);
    expect(hasRepeatedHost(["HOST", "a.localhost", "Accept", "*/*", "Host", "b.localhost"])).toBe(true);
    expect(hasRepeatedHost([])).toBe(false);
  });
});
