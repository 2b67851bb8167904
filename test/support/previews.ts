/**
 * Reaching preview hostnames ({port}-{id}-{token}.localhost:{port}) from Node,
 * whose resolver (unlike Chromium's) does not map *.localhost to loopback.
 */
import { lookup } from "node:dns";
import { request } from "node:http";
import type { LookupFunction } from "node:net";
import WebSocket from "ws";
import type { PreviewAccess, PreviewsOverview } from "../../protocol/previews";
import { ownerApi } from "./session";

const localhostLookup: LookupFunction = (hostname, options, callback) =>
  lookup(hostname.endsWith(".localhost") ? "localhost" : hostname, options, callback);

export interface PreviewResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** GET (or another method) on a preview URL. */
export function previewRequest(url: string, init: { method?: string; headers?: Record<string, string> } = {}) {
  return new Promise<PreviewResponse>((resolve, reject) => {
    const req = request(
      url,
      { method: init.method ?? "GET", headers: init.headers, lookup: localhostLookup },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/** Opens Vite's hot-reload socket through a preview URL, as the Vite client in a page would. */
export async function previewHmrSocket(url: string): Promise<WebSocket> {
  const client = await previewRequest(new URL("/@vite/client", url).toString());
  const token = /const wsToken = "([^"]+)"/.exec(client.body)?.[1];
  if (client.status !== 200 || !token) throw new Error(`no Vite client at ${url}: ${client.status}`);
  const wsUrl = new URL(`/?token=${token}`, url);
  wsUrl.protocol = "ws:";
  return new WebSocket(wsUrl, ["vite-hmr"], { origin: new URL(url).origin, lookup: localhostLookup });
}

/** Resolves with the socket's first message, or rejects when it closes or fails first. */
export function firstMessage(socket: WebSocket): Promise<string> {
  return new Promise((resolve, reject) => {
    socket.once("message", (data) => resolve(String(data)));
    socket.once("close", (code) => reject(new Error(`closed with ${code} before a message`)));
    socket.once("error", reject);
  });
}

export function closed(socket: WebSocket): Promise<number> {
  return new Promise((resolve) => {
    if (socket.readyState === WebSocket.CLOSED) resolve(-1);
    socket.once("close", (code) => resolve(code));
  });
}

/** Starts the template's `npm run dev` through the Run button's API and waits until port 5173 listens. */
export async function startTemplateDevServer(workspaceId: string, timeoutMs = 90_000): Promise<void> {
  const started = await ownerApi(`/api/workspaces/${workspaceId}/previews/dev-server`, { method: "POST" });
  if (started.status !== 200) throw new Error(`starting the dev server: ${started.status} ${await started.text()}`);
  const deadline = Date.now() + timeoutMs;
  let last: PreviewsOverview | undefined;
  while (Date.now() < deadline) {
    last = (await (await ownerApi(`/api/workspaces/${workspaceId}/previews`)).json()) as PreviewsOverview;
    if (last.ports.some((p) => p.port === 5173)) return;
    if (last.devServer.state === "exited") throw new Error(`the dev server exited:\n${last.devServer.output}`);
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`port 5173 did not listen in time: ${JSON.stringify(last)}`);
}

/** The owner's preview URL for a port: grant `renew` renewed, or a new one. */
export async function ownerPreview(workspaceId: string, port: number, renew?: string): Promise<PreviewAccess> {
  const query = renew ? `?grant=${renew}` : "";
  const response = await ownerApi(`/api/workspaces/${workspaceId}/previews/${port}${query}`, { method: "POST" });
  if (response.status !== 200) throw new Error(`opening the preview: ${response.status} ${await response.text()}`);
  return (await response.json()) as PreviewAccess;
}

export async function createShare(workspaceId: string, port: number, ttlSeconds = 300) {
  return ownerApi(`/api/workspaces/${workspaceId}/previews/${port}/shares`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ ttlSeconds }),
  });
}
