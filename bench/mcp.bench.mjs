// MCP: an agent's read_file and run_command `true` through the MCP endpoint
// (the official client over Streamable HTTP, a write token), each against the
// same operation the IDE's own page does: GET /files/content, and `true`
// typed into a terminal (until its marker comes back). Alternating, same run,
// same workspace.
import { performance } from "node:perf_hooks";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import WebSocket from "ws";
import { signIn } from "./lib/session.mjs";
import { median } from "./lib/stats.mjs";

export const title = "MCP (agents)";

const RUNS = 15;
const WARMUP = 3;

async function timeAsync(fn) {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

export async function run({ baseUrl }) {
  const session = await signIn(baseUrl);
  const { id } = await session.json("/api/workspaces", {
    method: "POST",
    body: { name: "bench mcp", template: "empty" },
  });
  let client;
  let terminal;
  try {
    const content = "x".repeat(4096);
    const put = await session.fetch(`/api/workspaces/${id}/files/content?path=bench.txt`, {
      method: "PUT",
      body: new TextEncoder().encode(content),
    });
    if (!put.ok) throw new Error(`writing bench.txt: ${put.status}`);
    const token = await session.json(`/api/workspaces/${id}/agent-tokens`, {
      method: "POST",
      body: { name: "bench", scope: "write", ttlSeconds: 3600 },
    });
    client = new Client({ name: "bench", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(token.mcpUrl), {
        requestInit: { headers: { Authorization: `Bearer ${token.token}` } },
      }),
    );
    terminal = await openTerminal(baseUrl, session.cookie, id);

    const mcpRead = async () => {
      const result = await client.callTool({ name: "read_file", arguments: { path: "bench.txt" } });
      if (result.isError || result.content[0].text !== content) throw new Error("read_file failed");
    };
    const apiRead = async () => {
      const response = await session.fetch(`/api/workspaces/${id}/files/content?path=bench.txt`);
      if ((await response.text()) !== content) throw new Error("GET /files/content failed");
    };
    const mcpTrue = async () => {
      const result = await client.callTool({ name: "run_command", arguments: { command: "true" } });
      if (result.isError || !result.content[1].text.includes("Exit code 0.")) throw new Error("run_command failed");
    };
    const terminalTrue = () => terminal.run();

    const pairs = [
      ["read_file 4 KB (median)", mcpRead, apiRead, "GET /files/content"],
      ["run_command `true` (median)", mcpTrue, terminalTrue, "terminal: true; echo"],
    ];
    const rows = [];
    for (const [metric, ours, reference, referenceName] of pairs) {
      for (let i = 0; i < WARMUP; i++) {
        await ours();
        await reference();
      }
      const a = [];
      const b = [];
      for (let i = 0; i < RUNS; i++) {
        a.push(await timeAsync(ours));
        b.push(await timeAsync(reference));
      }
      rows.push({ metric, ours: median(a), reference: median(b), referenceName, unit: "ms", target: "within 1.5x" });
    }
    return rows;
  } finally {
    terminal?.close();
    await client?.close().catch(() => {});
    await session.fetch(`/api/workspaces/${id}`, { method: "DELETE" });
  }
}

/** A terminal over the IDE's WebSocket; run() types `true` and waits for a fresh marker. */
async function openTerminal(baseUrl, cookie, id) {
  const url = new URL(`/ws/workspaces/${id}/terminals/bench?cols=120&rows=40`, baseUrl);
  url.protocol = "ws:";
  const ws = new WebSocket(url, { headers: { Origin: baseUrl, Cookie: cookie } });
  let text = "";
  let waiter;
  await new Promise((resolve, reject) => {
    ws.on("message", (data, isBinary) => {
      if (!isBinary) {
        if (JSON.parse(data.toString()).type === "ready") resolve();
        return;
      }
      text += data.toString("latin1");
      if (text.length > 100_000) text = text.slice(-10_000);
      waiter?.();
    });
    ws.on("error", reject);
    ws.on("unexpected-response", (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
  });
  let n = 0;
  return {
    run: () =>
      new Promise((resolve) => {
        n += 1;
        // The shell computes the marker, so the echoed command line does not match it.
        const mark = `done-${n + 1000}`;
        waiter = () => {
          if (text.includes(mark)) {
            waiter = undefined;
            text = "";
            resolve();
          }
        };
        ws.send(Buffer.from(`true; echo done-$((${n}+1000))\r`));
      }),
    close: () => ws.close(),
  };
}
