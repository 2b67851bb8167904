/**
 * The local dev server exposes nothing beyond loopback and lets no request
 * reach another person's page: the IDE's own hot-reload socket listens on
 * loopback only, a Host header that is not a host name is answered 400, and
 * a request that fails is answered 500 without Vite broadcasting the error
 * to every open IDE page as a full-screen overlay.
 */
import { readdirSync } from "node:fs";
import { request } from "node:http";
import { connect } from "node:net";
import { homedir, networkInterfaces } from "node:os";
import { fileURLToPath } from "node:url";
import { describe, expect, inject, it } from "vitest";
import WebSocket from "ws";

/** One address of this machine that is not loopback (another host on the network reaches it). */
function outsideAddress(): string {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? []) {
      if (address.family === "IPv4" && !address.internal) return address.address;
    }
  }
  throw new Error("this machine has no non-loopback IPv4 address to test with");
}

function canConnect(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** A raw request (fetch would refuse these headers and methods). */
function rawRequest(method: string, path: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port: inject("port"), method, path, headers: { host }, setHost: false },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => {
          body += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/** What the server sends back to `bytes` written on a socket of their own, until it closes. */
function rawExchange(bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port: inject("port") });
    let answer = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk) => {
      answer += chunk;
    });
    socket.on("end", () => resolve(answer));
    socket.on("error", reject);
    socket.write(bytes);
  });
}

/** The checkout whose `vite dev` serves the IDE under test. */
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Test files under a folder of the checkout, as paths from its root (`/app/api/http.test.ts`). */
function testFilesIn(dir: string): string[] {
  return readdirSync(`${ROOT}${dir}`, { recursive: true, encoding: "utf8" })
    .filter((file) => /\.test\.tsx?$/.test(file))
    .map((file) => `/${dir}/${file}`);
}

/** The same-origin URLs a page or module loads: its scripts, static and dynamic imports. */
function importsOf(code: string): string[] {
  return [...code.matchAll(/(?:src="|from\s*"|import\s*"|import\(\s*")(\/[^"]+)"/g)].map((m) => m[1] as string);
}

/**
 * An open IDE page's hot-reload client, as Vite's own client connects. `drain()`
 * returns what the server broadcast so far: a WebSocket ping's pong comes
 * after everything the server sent before it.
 */
async function hotReloadClient(): Promise<{ drain: () => Promise<unknown[]>; close: () => void }> {
  const socket = new WebSocket(`ws://localhost:${inject("hmrPort")}/`, "vite-hmr");
  const messages: unknown[] = [];
  socket.on("message", (data) => messages.push(JSON.parse(String(data))));
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  return {
    drain: () =>
      new Promise((resolve) => {
        socket.once("pong", () => resolve(messages.splice(0)));
        socket.ping();
      }),
    close: () => socket.close(),
  };
}

describe("the local dev server's exposure", () => {
  it("listens for the IDE's own hot reload on loopback only", async () => {
    expect(await canConnect("localhost", inject("hmrPort"))).toBe(true);
    expect(await canConnect(outsideAddress(), inject("hmrPort"))).toBe(false);
  });

  it("answers a Host header with user info 400, and no open page hears of it", async () => {
    const page = await hotReloadClient();
    try {
      await page.drain();
      const answer = await rawRequest("GET", "/api/health", `a@b.localhost:${inject("port")}`);
      expect(answer.status).toBe(400);
      expect(answer.body).not.toContain(" at ");
      expect((await page.drain()).filter((m) => (m as { type?: string }).type === "error")).toEqual([]);
    } finally {
      page.close();
    }
  });

  it("refuses a Host that only looks like a name (a preview's on an IP address), with no error text (issue 19)", async () => {
    const answer = await rawRequest("GET", "/api/health", `8099-abc-tok123.127.0.0.1:${inject("port")}`);
    expect([400, 403]).toContain(answer.status);
    expect(answer.body).not.toMatch(/Invalid URL| at /);
  });

  it("answers a request that fails 500 with a plain message, without an overlay on open pages", async () => {
    const page = await hotReloadClient();
    try {
      await page.drain();
      // Workers cannot represent a TRACE request: serving it fails before the Worker runs.
      const answer = await rawRequest("TRACE", "/", `localhost:${inject("port")}`);
      expect(answer.status).toBe(500);
      expect(answer.body).toBe("Internal Server Error\n");
      expect((await page.drain()).filter((m) => (m as { type?: string }).type === "error")).toEqual([]);
    } finally {
      page.close();
    }
  });

  it("transforms only the IDE's own modules: other files asked for as modules are 404, and no page hears of it (issue 19)", async () => {
    const page = await hotReloadClient();
    try {
      await page.drain();
      for (const path of [
        "/Dockerfile?lang.tsx",
        "/README.md?import",
        "/package.json?import&lang.ts",
        "/index.html?lang.tsx&import",
        "/app/main.tsx?lang.css",
      ]) {
        const answer = await rawRequest("GET", path, `localhost:${inject("port")}`);
        expect(answer.status, path).toBe(404);
        expect(answer.body, path).not.toMatch(/ at |\/work\/|node_modules/);
      }
      expect((await page.drain()).filter((m) => (m as { type?: string }).type === "error")).toEqual([]);
      // A preview's Host with a request target naming the IDE's host: the Worker serves the IDE, so the IDE's guard holds.
      const disguised = await rawRequest(
        "GET",
        `http://localhost:${inject("port")}/README.md?import`,
        `5173-abcdefgh-${"a".repeat(24)}.localhost:${inject("port")}`,
      );
      expect(disguised.status).toBe(404);
      expect(disguised.body).not.toMatch(/ at |\/work\/|node_modules|export default/);
      // The IDE's own modules still compile.
      const main = await rawRequest("GET", "/app/main.tsx", `localhost:${inject("port")}`);
      expect(main.status).toBe(200);
    } finally {
      page.close();
    }
  });

  it("answers two Host headers 400, as the Worker answers a workspace, not 500 (issue 42, finding 4)", async () => {
    const port = inject("port");
    for (const second of [`localhost:${port}`, `8080-abcdefgh-${"a".repeat(24)}.localhost:${port}`]) {
      const answer = await rawExchange(
        `GET /api/health HTTP/1.1\r\nHost: localhost:${port}\r\nHost: ${second}\r\nConnection: close\r\n\r\n`,
      );
      expect(answer, second).toMatch(/^HTTP\/1\.1 400 /);
      expect(answer, second).not.toMatch(/ at |\/work\/|node_modules/);
    }
  });

  it("answers anything of this machine but the IDE's sources with a plain 404 that names no path (issue 42, finding 6)", async () => {
    const secrets = [inject("password"), inject("sessionSecret")].filter((secret) => secret.length > 0);
    for (const path of [
      "/.dev.vars",
      "/.dev.vars?raw",
      "/.dev.vars?import",
      `/@fs${ROOT}.dev.vars`,
      "/app/../.dev.vars",
      "/app/%2e%2e/.dev.vars",
      "/@fs/etc/passwd",
      "/%2e%2e/%2e%2e/etc/passwd",
      "/README.md",
      "/package.json",
      "/wrangler.jsonc",
      "/worker/index.ts",
      "/scripts/lib/setup.mjs",
      "/node_modules/vite/package.json",
      "/__open-in-editor?file=README.md",
    ]) {
      const answer = await rawRequest("GET", path, `localhost:${inject("port")}`);
      expect(answer.status, path).toBe(404);
      expect(answer.body, path).toBe("Not Found\n");
      for (const text of [ROOT, homedir(), ...secrets]) expect(answer.body, path).not.toContain(text);
    }
  });

  it("compiles only what the IDE's page imports: tests and other sources are 404, and no open page reloads (issue 42, finding 3)", async () => {
    const page = await hotReloadClient();
    try {
      await page.drain();
      const tests = [...testFilesIn("app"), ...testFilesIn("protocol")];
      expect(tests.length).toBeGreaterThan(10);
      // Sources no page imports: tests (they import vitest), the Worker's and the set-up's.
      const foreign = [...tests, "/worker/index.ts", "/vite.config.ts", "/test/unit/ids.test.ts", "/scripts/start.mjs"];
      for (const path of foreign) {
        for (const asked of [path, `${path}?import`, `${path}?t=1`]) {
          const answer = await rawRequest("GET", asked, `localhost:${inject("port")}`);
          expect(answer.status, asked).toBe(404);
          expect(answer.body, asked).toBe("Not Found\n");
        }
      }
      // Vite optimises dependencies it finds after a short pause, then tells every page to reload:
      // watch the open page for as long as that took on main (seconds), then the page's own modules still load.
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline) {
        const reloads = (await page.drain()).filter((m) => (m as { type?: string }).type === "full-reload");
        expect(reloads).toEqual([]);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      // Every module of the page still loads, as a browser asks for them: each once its importer came.
      const html = await rawRequest("GET", "/", `localhost:${inject("port")}`);
      const queue = [...importsOf(html.body)];
      const loaded = new Set<string>();
      while (queue.length > 0) {
        const url = queue.shift() as string;
        if (loaded.has(url)) continue;
        loaded.add(url);
        const answer = await rawRequest("GET", url, `localhost:${inject("port")}`);
        expect(answer.status, url).toBe(200);
        queue.push(...importsOf(answer.body));
      }
      expect(loaded).toContain("/app/main.tsx");
      expect(loaded.size).toBeGreaterThan(100);
    } finally {
      page.close();
    }
  });
});
