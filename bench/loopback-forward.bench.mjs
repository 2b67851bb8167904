// Loopback forwards: what the resident agent's forward (sandbox/loopback_forwarder.py)
// costs a preview. The same Node server twice in one workspace: on 127.0.0.1
// (reached through the forward) and on 0.0.0.0 (reached directly), both
// through their preview hostnames, by turns, from the same client: a small
// GET (latency) and a 20 MB GET (throughput).
import { execFileSync } from "node:child_process";
import { lookup } from "node:dns";
import { Agent, request } from "node:http";
import { alternate, percentileName } from "./lib/alternate.mjs";
import { signIn } from "./lib/session.mjs";
import { percentile } from "./lib/stats.mjs";
import { findContainer } from "./lib/workspace-container.mjs";

export const title = "Loopback forwards (a server on 127.0.0.1 through the agent's forward vs on 0.0.0.0)";

const SMALL = 100;
const LARGE = 8;
const FORWARDED = 7401;
const DIRECT = 7402;

const SERVER = `
const big = Buffer.alloc(20 * 1024 * 1024, 7);
const small = Buffer.alloc(2048, 7);
const [host, port] = process.argv.slice(1);
require("node:http").createServer((req, res) => res.end(req.url === "/big" ? big : small)).listen(Number(port), host);
`;

export async function run({ baseUrl }) {
  const session = await signIn(baseUrl);
  const { id } = await session.json("/api/workspaces", { method: "POST", body: { name: "bench loopback forwards" } });
  try {
    const container = await findContainer(session, id);
    for (const [host, port] of [
      ["127.0.0.1", FORWARDED],
      ["0.0.0.0", DIRECT],
    ]) {
      execFileSync("docker", ["exec", "-d", container, "node", "-e", SERVER, host, String(port)]);
    }
    await waitFor(async () => {
      const overview = await (await session.fetch(`/api/workspaces/${id}/previews`)).json();
      const forwarded = overview.ports.find((p) => p.port === FORWARDED);
      return forwarded?.forwarded && overview.ports.some((p) => p.port === DIRECT);
    }, 60_000);
    const urls = {};
    for (const port of [FORWARDED, DIRECT]) {
      urls[port] = (
        await (await session.fetch(`/api/workspaces/${id}/previews/${port}`, { method: "POST" })).json()
      ).url;
    }
    const forwarded = requester(urls[FORWARDED]);
    const direct = requester(urls[DIRECT]);
    for (let i = 0; i < 5; i++) await Promise.all([forwarded.get("/small"), direct.get("/small")]);
    const [smallForwarded, smallDirect] = await alternate(
      SMALL,
      () => forwarded.get("/small"),
      () => direct.get("/small"),
    );
    const [bigForwarded, bigDirect] = await alternate(
      LARGE,
      () => forwarded.get("/big"),
      () => direct.get("/big"),
    );
    forwarded.close();
    direct.close();
    return [
      {
        metric: `GET 2 KB p50 (${SMALL} requests)`,
        ours: percentile(smallForwarded, 50),
        reference: percentile(smallDirect, 50),
        referenceName: "server on 0.0.0.0",
        unit: "ms",
        target: "forward adds < 1 ms",
      },
      {
        metric: `GET 2 KB ${percentileName(95, SMALL)}`,
        ours: percentile(smallForwarded, 95),
        reference: percentile(smallDirect, 95),
        referenceName: "server on 0.0.0.0",
        unit: "ms",
      },
      {
        metric: `GET 20 MB p50 (${LARGE} requests)`,
        ours: percentile(bigForwarded, 50),
        reference: percentile(bigDirect, 50),
        referenceName: "server on 0.0.0.0",
        unit: "ms",
      },
    ];
  } finally {
    await session.fetch(`/api/workspaces/${id}`, { method: "DELETE" });
  }
}

function requester(url) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const get = (path) =>
    new Promise((resolve, reject) => {
      const started = performance.now();
      const req = request(new URL(path, url), { agent, lookup: localhostLookup }, (res) => {
        res.resume();
        res.on("end", () =>
          res.statusCode === 200
            ? resolve(performance.now() - started)
            : reject(new Error(`${url}: ${res.statusCode}`)),
        );
      });
      req.on("error", reject);
      req.end();
    });
  return { get, close: () => agent.destroy() };
}

async function waitFor(check, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error("timed out");
}

const localhostLookup = (hostname, options, callback) =>
  lookup(hostname.endsWith(".localhost") ? "localhost" : hostname, options, callback);
