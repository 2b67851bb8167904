import { describe, expect, it } from "vitest";
import {
  isForeignTransform,
  isPreviewRequest,
  isSourceError,
  isValidHostHeader,
} from "../../scripts/lib/dev-server-guards.mjs";

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
      "8099-abc-tok123.127.0.0.1:5173",
    ]) {
      expect(isValidHostHeader(host), host).toBe(false);
    }
  });
});

describe("what Vite may transform (issue 19, finding 2)", () => {
  it("refuses other files, and transforms the IDE's page never asks for", () => {
    for (const url of [
      "/Dockerfile?lang.tsx",
      "/README.md?import",
      "/package.json?import&lang.ts",
      "/index.html?lang.tsx&import",
      "/app/main.tsx?lang.css",
      "/app/main.tsx?raw",
      "/app/%2e%2e/Dockerfile?import",
      "/@fs/etc/passwd?import",
      "/wrangler.jsonc?url",
    ]) {
      expect(isForeignTransform(url), url).toBe(true);
    }
  });

  it("lets the IDE's own module requests through", () => {
    for (const url of [
      "/",
      "/?workspace=abc",
      "/app/main.tsx",
      "/app/main.tsx?t=1712",
      "/app/editor/EditorPane.css?direct",
      "/app/logo.svg?import",
      "/node_modules/.vite/deps/react.js?v=1a2b",
      "/@vite/client",
      "/@react-refresh",
    ]) {
      expect(isForeignTransform(url), url).toBe(false);
    }
  });
});

describe("which requests are a preview's, left to the Worker (issue 43, part 1)", () => {
  const domain = "localhost:5173";

  it("is a request for a subdomain of the preview domain, as the Worker reads it", () => {
    for (const [url, host] of [
      ["/src/assets/vite.svg?import", "5173-ada-tok1234567890abcdef.localhost:5173"],
      ["/README.md?import", "8080-ADA-tok1234567890abcdef.LOCALHOST:5173"],
      // The URL parser drops a leading zero of the port, as the Worker's URL does.
      ["/x?import", "8080-ada-tok.localhost:05173"],
      // The request target's own host is the one the Worker sees.
      ["http://8080-ada-tok.localhost:5173/x?import", "localhost:5173"],
    ] as const) {
      expect(isPreviewRequest(url, host, domain), `${host} ${url}`).toBe(true);
    }
  });

  it("is not a request the Worker serves as the IDE, whatever the Host header says", () => {
    for (const [url, host] of [
      ["/README.md?import", "localhost:5173"],
      ["/README.md?import", "127.0.0.1:5173"],
      ["/README.md?import", undefined],
      // The Worker's URL names the IDE's host: the IDE's guards apply.
      ["http://localhost:5173/README.md?import", "8080-ada-tok.localhost:5173"],
      // Another port, no port, a trailing dot: not under the preview domain.
      ["/README.md?import", "8080-ada-tok.localhost:5174"],
      ["/README.md?import", "8080-ada-tok.localhost"],
      ["/README.md?import", "8080-ada-tok.localhost.:5173"],
      ["/README.md?import", "evil-localhost:5173"],
      ["/README.md?import", "a@b.localhost:5173"],
    ] as const) {
      expect(isPreviewRequest(url, host, domain), `${host} ${url}`).toBe(false);
    }
  });
});

describe("which errors keep Vite's overlay", () => {
  it("is only those that name a module of the IDE", () => {
    const root = new URL("../../", import.meta.url).pathname;
    expect(isSourceError(Object.assign(new SyntaxError("Unexpected token"), { id: `${root}app/main.tsx` }))).toBe(true);
    expect(
      isSourceError(Object.assign(new SyntaxError("Unexpected token"), { id: `${root}Dockerfile?lang.tsx` })),
    ).toBe(false);
    expect(isSourceError(Object.assign(new SyntaxError("x"), { id: `${root}README.md` }))).toBe(false);
    expect(isSourceError(new TypeError("'TRACE' HTTP method is unsupported."))).toBe(false);
    expect(isSourceError("a string")).toBe(false);
  });
});
