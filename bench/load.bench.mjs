// A bounded load check (not a timed test): workspace A gets 50 terminals opened
// at once, 10 of them flooding output (`yes`, acknowledged as a page would),
// while another workspace B's file reads and /api/health are timed. The same
// reads are timed first with A idle, in the same run: p50/p95 side by side.
// Bounded: the flood runs `timeout 20 yes`, and everything closes at the end.
import { performance } from "node:perf_hooks";
import WebSocket from "ws";
import { signIn } from "./lib/session.mjs";
import { percentile } from "./lib/stats.mjs";

export const title = "Under load: another workspace's reads while 50 terminals open (10 flooding)";

const TERMINALS = 50;
const FLOODING = 10;
const SAMPLES = 60;

async function timeReads(session, workspace) {
  const file = [];
  const health = [];
  for (let i = 0; i < SAMPLES; i++) {
    let start = performance.now();
    const read = await session.fetch(`/api/workspaces/${workspace}/files/content?path=load.txt`);
    await read.arrayBuffer();
    if (read.status !== 200) throw new Error(`file read: ${read.status}`);
    file.push(performance.now() - start);
    start = performance.now();
    const ok = await session.fetch("/api/health");
    await ok.arrayBuffer();
    health.push(performance.now() - start);
  }
  return { file, health };
}

/** Opens a terminal socket and resolves once it is ready; flooding ones start `yes` and acknowledge output. */
function openTerminal(baseUrl, cookie, workspace, name, flood) {
  const url = new URL(`/ws/workspaces/${workspace}/terminals/${name}?cols=100&rows=30`, baseUrl);
  url.protocol = "ws:";
  const ws = new WebSocket(url, { headers: { Cookie: cookie, Origin: baseUrl } });
  let unacked = 0;
  let received = 0;
  const ready = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`terminal ${name} not ready in 120 s`)), 120_000);
    ws.on("message", (data, isBinary) => {
      if (isBinary) {
        received += data.byteLength;
        unacked += data.byteLength;
        // The page acknowledges what it drew; this client "draws" at once. An ack carries the total
        // since the socket opened (app/terminal/terminal-connection.ts), not what came since the last one.
        if (unacked >= 64 * 1024) {
          ws.send(JSON.stringify({ type: "ack", bytes: received }));
          unacked = 0;
        }
        return;
      }
      if (JSON.parse(data.toString()).type === "ready") {
        clearTimeout(timer);
        if (flood) ws.send(Buffer.from("timeout 20 yes load-check-flood\r"));
        resolve();
      }
    });
    ws.on("error", reject);
  });
  return { ws, ready, received: () => received };
}

export async function run({ baseUrl }) {
  const session = await signIn(baseUrl);
  const make = async (name) => (await session.json("/api/workspaces", { method: "POST", body: { name } })).id;
  const a = await make("load: terminals");
  const b = await make("load: reads");
  const terminals = [];
  try {
    await session.json(`/api/workspaces/${a}/wake`, { method: "POST" });
    await session.json(`/api/workspaces/${b}/wake`, { method: "POST" });
    const put = await session.fetch(`/api/workspaces/${b}/files/content?path=load.txt`, {
      method: "PUT",
      body: new Uint8Array(64 * 1024).fill(97),
    });
    if (put.status !== 200) throw new Error(`writing the file: ${put.status}`);
    await timeReads(session, b); // warm-up
    const idle = await timeReads(session, b);

    const opening = performance.now();
    for (let i = 0; i < TERMINALS; i++) {
      terminals.push(openTerminal(baseUrl, session.cookie, a, `load-${i}`, i < FLOODING));
    }
    // Timed while the terminals are being opened and flooding.
    const [loaded, openResults] = await Promise.all([
      timeReads(session, b),
      Promise.allSettled(terminals.map((t) => t.ready)),
    ]);
    const opened = openResults.filter((r) => r.status === "fulfilled").length;
    const openMs = performance.now() - opening;
    const flooded = terminals.slice(0, FLOODING).reduce((sum, t) => sum + t.received(), 0);
    const row = (metric, idleValues, loadedValues) => [
      {
        metric: `${metric} p50`,
        ours: percentile(loadedValues, 50),
        reference: percentile(idleValues, 50),
        referenceName: "A idle",
        unit: "ms",
      },
      {
        metric: `${metric} p95`,
        ours: percentile(loadedValues, 95),
        reference: percentile(idleValues, 95),
        referenceName: "A idle",
        unit: "ms",
      },
    ];
    return [
      ...row("B: read a 64 KB file", idle.file, loaded.file),
      ...row("/api/health", idle.health, loaded.health),
      { metric: `terminals of A ready (of ${TERMINALS})`, ours: opened, unit: "" },
      { metric: "A: all terminals settled after", ours: openMs, unit: "ms" },
      { metric: `A: flood output received (${FLOODING} terminals)`, ours: flooded / 1e6, unit: "MB" },
    ];
  } finally {
    for (const t of terminals) t.ws.close();
    await session.fetch(`/api/workspaces/${a}`, { method: "DELETE" });
    await session.fetch(`/api/workspaces/${b}`, { method: "DELETE" });
  }
}
