/**
 * The local dev server exposes nothing beyond loopback and lets no request
 * reach another person's page: the IDE's own hot-reload socket listens on
 * loopback only, a Host header that is not a host name is answered 400, and
 * a request that fails is answered 500 without Vite broadcasting the error
 * to every open IDE page as a full-screen overlay.
 */
import { request } from "node:http";
import { connect } from "node:net";
import { networkInterfaces } from "node:os";
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
});
