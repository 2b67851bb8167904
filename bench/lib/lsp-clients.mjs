// Two ways to talk to a language server, with one interface: through the
// IDE's WebSocket route (one JSON-RPC message per text frame) and straight to
// the server's stdio with `docker exec -i` (Content-Length framing), so a
// benchmark runs the same requests over both.
import { spawn } from "node:child_process";
import WebSocket from "ws";

function client(sendText) {
  let nextId = 1;
  const pending = new Map();
  const listeners = new Set();
  return {
    receive(text) {
      const message = JSON.parse(text);
      if (message.id !== undefined && message.method === undefined) {
        pending.get(message.id)?.(message);
        pending.delete(message.id);
      } else if (message.id !== undefined) {
        // The server asks the client (configuration, registrations): null answers all of them.
        const result = message.method === "workspace/configuration" ? message.params.items.map(() => null) : null;
        sendText(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }));
      } else {
        for (const listener of listeners) listener(message);
      }
    },
    api: {
      request(method, params, timeoutMs = 60_000) {
        const id = nextId++;
        return new Promise((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`${method}: no answer in ${timeoutMs} ms`)), timeoutMs);
          pending.set(id, (message) => {
            clearTimeout(timer);
            if (message.error) reject(new Error(`${method}: ${message.error.message}`));
            else resolve(message.result);
          });
          sendText(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
        });
      },
      notify(method, params) {
        sendText(JSON.stringify({ jsonrpc: "2.0", method, params }));
      },
      /** Resolves with the first notification that matches. */
      waitFor(match, timeoutMs = 60_000) {
        return new Promise((resolve, reject) => {
          const listener = (message) => {
            if (!match(message)) return;
            listeners.delete(listener);
            clearTimeout(timer);
            resolve(message);
          };
          const timer = setTimeout(() => {
            listeners.delete(listener);
            reject(new Error(`no matching notification in ${timeoutMs} ms`));
          }, timeoutMs);
          listeners.add(listener);
        });
      },
    },
  };
}

/** The IDE's `/ws/workspaces/{id}/lsp/{language}`. */
export async function socketClient(baseUrl, cookie, workspaceId, language) {
  const url = new URL(`/ws/workspaces/${workspaceId}/lsp/${language}`, baseUrl);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(url, { headers: { Cookie: cookie, Origin: baseUrl } });
  await new Promise((resolve, reject) => {
    ws.once("open", resolve);
    ws.once("error", reject);
    ws.once("unexpected-response", (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
  });
  const { receive, api } = client((text) => ws.send(text));
  ws.on("message", (data) => receive(data.toString()));
  return { ...api, close: () => ws.close() };
}

/** The same server run bare in the same container: `docker exec -i CONTAINER argv`, Content-Length framed. */
export function stdioClient(container, argv) {
  const child = spawn("docker", ["exec", "-i", "-w", "/workspace", container, ...argv], {
    stdio: ["pipe", "pipe", "ignore"],
  });
  const { receive, api } = client((text) => {
    child.stdin.write(`Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`);
  });
  let buffer = Buffer.alloc(0);
  child.stdout.on("data", (chunk) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      const end = buffer.indexOf("\r\n\r\n");
      if (end === -1) return;
      const length = Number(/content-length:\s*(\d+)/i.exec(buffer.subarray(0, end).toString())?.[1]);
      if (buffer.length < end + 4 + length) return;
      receive(buffer.subarray(end + 4, end + 4 + length).toString());
      buffer = buffer.subarray(end + 4 + length);
    }
  });
  return { ...api, close: () => child.kill() };
}
