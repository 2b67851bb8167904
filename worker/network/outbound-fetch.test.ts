/**
 * The local platform's outbound proxy (scripts/lib/outbound-proxy.mjs) with
 * the Worker's side of it (worker/network/outbound-fetch.ts), in Node: a
 * workspace's request leaves only for an address the rule allows, checked
 * inside the connect, and every failure is a word the Worker turns into its
 * own text (issue 42). Here the rule allows 127.0.0.2 alone, so real servers
 * on this machine stand for "public" and "this machine".
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { Socket } from "node:net";
import { hostname } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket, WebSocketServer } from "ws";
import { checkedLookup, startOutboundProxy } from "../../scripts/lib/outbound-proxy.mjs";
import { publicAddressCheck } from "../../scripts/local-engine/egress/address-ranges.mjs";
import { OutboundRefused, OutboundUnreachable, sendOutbound, withoutTrustedHeaders } from "./outbound-fetch";

const ALLOWED = "127.0.0.2";
const token = "k".repeat(64);

async function listen(server: Server, host: string): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const address = server.address();
  return typeof address === "object" && address ? address.port : 0;
}

describe("the outbound proxy", () => {
  let proxy: Awaited<ReturnType<typeof startOutboundProxy>>;
  let allowedServer: Server;
  let canary: Server;
  let silent: Server;
  let port: number;
  let canaryPort: number;
  let silentPort: number;
  let canaryHits = 0;
  const seen: IncomingMessage[] = [];
  const sockets = new Set<Socket>();
  const local = () => ({ proxy: proxy.url, token });

  beforeAll(async () => {
    allowedServer = createServer((req, res) => {
      seen.push(req);
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        res.writeHead(201, { "Content-Type": "application/json", "Set-Cookie": ["a=1", "b=2"] });
        res.end(
          JSON.stringify({
            method: req.method,
            url: req.url,
            headers: req.headers,
            body: Buffer.concat(chunks).toString(),
          }),
        );
      });
    });
    port = await listen(allowedServer, ALLOWED);
    const wss = new WebSocketServer({ server: allowedServer });
    wss.on("connection", (socket) => socket.on("message", (data) => socket.send(`echo ${data}`)));
    // Every address of this machine, on a port of its own: reached only if the check fails.
    canary = createServer((_req, res) => {
      canaryHits += 1;
      res.end("canary-reached");
    });
    canaryPort = await listen(canary, "0.0.0.0");
    silent = createServer(() => {});
    silent.on("connection", (socket) => sockets.add(socket));
    silentPort = await listen(silent, ALLOWED);
    proxy = await startOutboundProxy({
      token,
      hostAddresses: [],
      fixedHosts: { "good.test": ALLOWED, "bad.test": "127.0.0.1", "bad6.test": "::1", "private.test": "10.0.0.1" },
      isAllowed: (address) => address === ALLOWED,
      answerTimeoutMs: 1500,
    });
  });

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await proxy.close();
    for (const server of [allowedServer, canary, silent]) server.closeAllConnections();
    await Promise.all(
      [allowedServer, canary, silent].map((server) => new Promise((resolve) => server.close(() => resolve(undefined)))),
    );
  });

  it("forwards an allowed request with its method, path, body and headers, and the server's answer as it is", async () => {
    const response = await sendOutbound(
      new Request(`http://good.test:${port}/a/b?c=d`, {
        method: "POST",
        headers: { "X-Kept": "yes", "Content-Type": "text/plain" },
        body: "hello",
      }),
      local(),
      true,
    );
    expect(response.status).toBe(201);
    expect(response.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
    const echoed = (await response.json()) as {
      method: string;
      url: string;
      body: string;
      headers: Record<string, string>;
    };
    expect(echoed).toMatchObject({ method: "POST", url: "/a/b?c=d", body: "hello" });
    expect(echoed.headers.host).toBe(`good.test:${port}`);
    expect(echoed.headers["x-kept"]).toBe("yes");
    // The proxy's own headers stop at the proxy.
    expect(Object.keys(echoed.headers).filter((name) => name.startsWith("x-cloud-ide"))).toEqual([]);
  });

  it("refuses a name that resolves to this machine or a private network, whatever port, and connects nowhere", async () => {
    const hits = canaryHits;
    // hostname(): this machine's own name, which /etc/hosts points at loopback on Debian.
    for (const host of ["bad.test", "bad6.test", "private.test", "localhost", "127.0.0.1", "[::1]", hostname()]) {
      const url = `http://${host}:${canaryPort}/`;
      const sent = sendOutbound(new Request(url), local(), true);
      await expect(sent, url).rejects.toBeInstanceOf(OutboundRefused);
    }
    await expect(sendOutbound(new Request(`http://bad.test:${canaryPort}/`), local(), true)).rejects.toMatchObject({
      address: "127.0.0.1",
    });
    expect(canaryHits - hits).toBe(0);
  });

  it("says why a request got no answer: a name that does not resolve, a closed port, a server that never answers", async () => {
    await expect(sendOutbound(new Request("http://no-such-host.invalid/"), local(), true)).rejects.toMatchObject({
      reason: "dns",
    });
    const closed = createServer();
    const closedPort = await listen(closed, ALLOWED);
    await new Promise((resolve) => closed.close(resolve));
    await expect(sendOutbound(new Request(`http://good.test:${closedPort}/`), local(), true)).rejects.toMatchObject({
      reason: "connection",
    });
    const began = Date.now();
    const hung = sendOutbound(new Request(`http://good.test:${silentPort}/`), local(), true);
    await expect(hung).rejects.toBeInstanceOf(OutboundUnreachable);
    await expect(hung).rejects.toMatchObject({ reason: "timeout" });
    expect(Date.now() - began).toBeLessThan(10_000);
  });

  it("takes requests only with its token", async () => {
    const response = await fetch(proxy.url, { headers: { "X-Cloud-IDE-Outbound-Url": `http://good.test:${port}/` } });
    expect(response.status).toBe(403);
    const wrong = await fetch(proxy.url, {
      headers: {
        "X-Cloud-IDE-Outbound-Url": `http://good.test:${port}/`,
        "X-Cloud-IDE-Outbound-Token": "x".repeat(64),
      },
    });
    expect(wrong.status).toBe(403);
  });

  it("relays a WebSocket once the server accepted it, and refuses one to this machine", async () => {
    const socket = new WebSocket(proxy.url, {
      headers: { "X-Cloud-IDE-Outbound-Url": `http://good.test:${port}/socket`, "X-Cloud-IDE-Outbound-Token": token },
    });
    const reply = await new Promise<string>((resolve, reject) => {
      socket.on("open", () => socket.send("ping"));
      socket.on("message", (data) => resolve(String(data)));
      socket.on("error", reject);
    });
    socket.close();
    expect(reply).toBe("echo ping");
    const refused = new WebSocket(proxy.url, {
      headers: { "X-Cloud-IDE-Outbound-Url": `http://bad.test:${canaryPort}/`, "X-Cloud-IDE-Outbound-Token": token },
    });
    const status = await new Promise<string | undefined>((resolve) => {
      refused.on("unexpected-response", (_req, res) => resolve(String(res.headers["x-cloud-ide-outbound-failure"])));
      refused.on("open", () => resolve(undefined));
      refused.on("error", () => resolve("error"));
    });
    expect(status).toBe("refused 127.0.0.1");
  });

  it("refuses every address of the real rule that is not the public Internet, IPv4-mapped spellings included", () => {
    const check = publicAddressCheck(["192.0.2.2"]);
    const lookup = checkedLookup(check, { "mapped.test": "::ffff:127.0.0.1", "machine.test": "192.0.2.2" });
    for (const name of ["mapped.test", "machine.test"]) {
      lookup(name, {}, (error) => expect(error, name).toBeInstanceOf(Error));
    }
  });
});

describe("headers a container may not set", () => {
  it("drops Cloudflare's, forwarding chains and the IDE's internal ones, and keeps the rest", () => {
    const kept = withoutTrustedHeaders(
      new Headers({
        "CF-Connecting-IP": "1.2.3.4",
        "cf-ray": "x",
        "CF-IPCountry": "ZZ",
        "X-Forwarded-For": "1.2.3.4",
        "X-Forwarded-Proto": "https",
        Forwarded: "for=1.2.3.4",
        "X-Real-IP": "1.2.3.4",
        "True-Client-IP": "1.2.3.4",
        "X-Cloud-IDE-Caller": "owner",
        "X-Cloud-IDE-Session": "s",
        "X-Cloud-Ide-Preview": "8080 t",
        "X-Cloud-IDE-Agent": "a",
        Authorization: "Bearer kept",
        Accept: "application/json",
      }),
    );
    expect([...kept.keys()].sort()).toEqual(["accept", "authorization"]);
  });
});
