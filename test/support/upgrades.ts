/**
 * How a WebSocket upgrade was answered: 101 when it opened, else the HTTP
 * status the IDE refused it with. A dropped connection is never a refusal.
 * `vite dev` (@cloudflare/vite-plugin) drops the connection of an upgrade the
 * Worker answered with anything but 101, so there the status is read from
 * the Worker's own log of the refusal ("refused WebSocket upgrade PATH:
 * STATUS", written after this request was sent); a drop that the Worker did
 * not log fails the test. Under plain `wrangler dev` and in production the
 * status arrives as the HTTP answer itself.
 */
import { readFileSync, statSync } from "node:fs";
import { inject } from "vitest";
import WebSocket from "ws";

export async function upgradeAnswer(
  path: string,
  headers: Record<string, string>,
  protocols?: string[],
): Promise<number> {
  const url = new URL(path, inject("baseUrl"));
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  const log = inject("serverLog");
  const logStart = logSize(log);
  const answer = await new Promise<number | "dropped">((resolve) => {
    const socket = new WebSocket(url, protocols, { headers });
    socket.on("unexpected-response", (_req, res) => {
      resolve(res.statusCode ?? 0);
      socket.terminate();
    });
    socket.on("open", () => {
      resolve(101);
      socket.close();
    });
    socket.on("error", () => resolve("dropped"));
  });
  if (answer !== "dropped") return answer;
  const deadline = Date.now() + 10_000;
  for (;;) {
    const line = readFileSync(log)
      .subarray(logStart)
      .toString("utf8")
      .split("\n")
      .find((l) => l.includes(`refused WebSocket upgrade ${url.pathname}:`));
    const status = line && /: (\d{3})\b/.exec(line.slice(line.indexOf(url.pathname)))?.[1];
    if (status) return Number(status);
    if (Date.now() > deadline) {
      throw new Error(`the upgrade of ${url.pathname} was dropped, and the Worker logged no refusal of it`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function logSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}
