import { describe, expect, it } from "vitest";
import {
  describeWithCauses,
  devServerGuards,
  isForeignTransform,
  isIdeModuleRequest,
  isPreviewRequest,
  isSourceError,
  isValidHostHeader,
  mayResend,
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

describe("which requests Vite serves without the Worker", () => {
  const ide = "localhost:5173";
  const on = (url: string, host = ide, method = "GET") => isIdeModuleRequest({ method, url, host }, ide);

  it("is the IDE page's modules on the IDE's host", () => {
    expect(on("/app/main.tsx")).toBe(true);
    expect(on("/app/editor/EditorPane.tsx?t=1700000000")).toBe(true);
    expect(on("/protocol/errors.ts")).toBe(true);
    expect(on("/@vite/client")).toBe(true);
    expect(on("/@react-refresh")).toBe(true);
    expect(on("/node_modules/.vite/deps/react.js?v=1234")).toBe(true);
    expect(on("/app/main.tsx", "127.0.0.1:5173", "HEAD")).toBe(true);
  });

  it("is never the page, the API, a body, or a preview hostname's request", () => {
    expect(on("/")).toBe(false);
    expect(on("/workspaces/abc")).toBe(false);
    expect(on("/api/workspaces")).toBe(false);
    expect(on("/ws/workspaces/abc/terminals/1")).toBe(false);
    expect(on("/app/main.tsx", ide, "POST")).toBe(false);
    // A dev server's own /app/ and /@vite/ on a preview hostname are its own: they go to the Worker.
    expect(on("/app/main.tsx", "5173-abc-token.localhost:5173")).toBe(false);
    expect(on("/@vite/client", "5173-abc-token.localhost:5173")).toBe(false);
    expect(on("/app/main.tsx", "a@b.localhost")).toBe(false);
    expect(on("http://5173-abc-token.localhost:5173/app/main.tsx")).toBe(false);
  });
});

describe("which failed requests are sent to the Worker once more", () => {
  // As undici reports a pooled connection workerd closed: "fetch failed", the socket error as its cause.
  const lost = new TypeError("fetch failed", {
    cause: Object.assign(new Error("other side closed"), { name: "SocketError", code: "UND_ERR_SOCKET" }),
  });
  const get = { method: "GET", headers: {}, retried: false, headersSent: false };

  it("is a request without a body that lost its connection before any answer, once", () => {
    expect(mayResend(get, lost)).toBe(true);
    expect(mayResend({ ...get, method: "HEAD" }, lost)).toBe(true);
    const reset = new TypeError("fetch failed", {
      cause: Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }),
    });
    expect(mayResend(get, reset)).toBe(true);
    expect(mayResend({ ...get, retried: true }, lost)).toBe(false);
    expect(mayResend({ ...get, headersSent: true }, lost)).toBe(false);
  });

  it("is never a request with a body, an upgrade, or one the Worker failed itself", () => {
    expect(mayResend({ ...get, method: "POST" }, lost)).toBe(false);
    expect(mayResend({ ...get, method: "DELETE" }, lost)).toBe(false);
    expect(mayResend({ ...get, headers: { upgrade: "websocket" } }, lost)).toBe(false);
    expect(mayResend(get, new Error("Worker threw an uncaught exception"))).toBe(false);
    expect(mayResend(get, new TypeError("fetch failed", { cause: new Error("aborted") }))).toBe(false);
    expect(mayResend(get, "a string")).toBe(false);
  });

  it("is logged with its causes", () => {
    expect(describeWithCauses(lost)).toBe("TypeError: fetch failed <- SocketError: other side closed (UND_ERR_SOCKET)");
    expect(describeWithCauses("plain")).toBe("plain");
  });
});

describe("a request lost on its way to the Worker, in a real Vite dev server", () => {
  it("is answered by the second try, and a POST is not sent again", async () => {
    const { createServer } = await import("vite");
    const { createServer: createHttpServer } = await import("node:http");
    const calls: string[] = [];
    // Stands in for the Cloudflare plugin's handler: its first dispatch of each request finds the connection gone.
    const flakyWorker: import("vite").Plugin = {
      name: "flaky-worker",
      configureServer(server) {
        return () => {
          server.middlewares.use((req, res, next) => {
            calls.push(`${req.method} ${req.url}`);
            if (calls.filter((c) => c === `${req.method} ${req.url}`).length === 1) {
              const cause = Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" });
              return next(new TypeError("fetch failed", { cause }));
            }
            res.end(`answered ${req.method}`);
          });
        };
      },
    };
    const vite = await createServer({
      configFile: false,
      appType: "custom",
      logLevel: "silent",
      server: { middlewareMode: true, hmr: false, ws: false },
      plugins: [flakyWorker, devServerGuards({ previewDomain: "localhost" })],
    });
    const http = createHttpServer(vite.middlewares);
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = http.address() as import("node:net").AddressInfo;
      const get = await fetch(`http://127.0.0.1:${port}/api/thing?x=1`);
      expect([get.status, await get.text()]).toEqual([200, "answered GET"]);
      const post = await fetch(`http://127.0.0.1:${port}/api/thing`, { method: "POST", body: "x" });
      expect([post.status, await post.text()]).toEqual([500, "Internal Server Error\n"]);
      expect(calls).toEqual(["GET /api/thing?x=1", "GET /api/thing?x=1", "POST /api/thing"]);
    } finally {
      await new Promise((resolve) => http.close(resolve));
      await vite.close();
    }
    // A real Vite server starts in about a second, more on a loaded machine (5441 ms once in CI's unit tier).
  }, 60_000);
});
