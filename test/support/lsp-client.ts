/** A language-server WebSocket as a test sees it: JSON-RPC requests, notifications, and waits. */
import type WebSocket from "ws";
import { ownerWebSocket } from "./session";

export interface LspMessage {
  jsonrpc: "2.0";
  id?: number | string | null;
  method?: string;
  // biome-ignore lint/suspicious/noExplicitAny: JSON from a language server; the tests' expectations check its shape
  params?: any;
  // biome-ignore lint/suspicious/noExplicitAny: as above
  result?: any;
  error?: { code: number; message: string };
}

export interface LspSocket {
  ws: WebSocket;
  /** Every message received so far. */
  messages: LspMessage[];
  request(method: string, params?: unknown, timeoutMs?: number): Promise<LspMessage>;
  notify(method: string, params?: unknown): void;
  /** Sends a raw text frame. */
  sendRaw(text: string): void;
  /** Resolves with the first message (received so far or later) that matches. */
  waitFor(match: (message: LspMessage) => boolean, what: string, timeoutMs?: number): Promise<LspMessage>;
  close(): void;
}

/** Opens `/ws/workspaces/{id}/lsp/{language}` as the owner (without initializing). */
export async function openLspSocket(workspaceId: string, language: string): Promise<LspSocket> {
  const ws = await ownerWebSocket(`/ws/workspaces/${workspaceId}/lsp/${language}`);
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("unexpected-response", (_req, res) => reject(new Error(`HTTP ${res.statusCode} instead of an upgrade`)));
    ws.once("error", reject);
  });
  const messages: LspMessage[] = [];
  const listeners = new Set<() => void>();
  ws.on("message", (data) => {
    messages.push(JSON.parse(data.toString()) as LspMessage);
    for (const listener of listeners) listener();
  });
  let nextId = 1;
  const waitFor = (match: (message: LspMessage) => boolean, what: string, timeoutMs = 60_000) =>
    new Promise<LspMessage>((resolve, reject) => {
      const check = () => {
        const found = messages.find(match);
        if (!found) return;
        listeners.delete(check);
        clearTimeout(timer);
        resolve(found);
      };
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(new Error(`timed out waiting for ${what}; last: ${JSON.stringify(messages.slice(-3)).slice(0, 800)}`));
      }, timeoutMs);
      listeners.add(check);
      check();
    });
  const socket: LspSocket = {
    ws,
    messages,
    request: (method, params, timeoutMs) => {
      const id = nextId++;
      ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
      return waitFor((m) => m.id === id && m.method === undefined, `the answer to ${method}`, timeoutMs);
    },
    notify: (method, params) => ws.send(JSON.stringify({ jsonrpc: "2.0", method, params })),
    sendRaw: (text) => ws.send(text),
    waitFor,
    close: () => ws.close(),
  };
  return socket;
}

/** Opens and initializes, as the page's client does. */
export async function initializedLspSocket(workspaceId: string, language: string): Promise<LspSocket> {
  const socket = await openLspSocket(workspaceId, language);
  const answer = await socket.request(
    "initialize",
    {
      processId: null,
      rootUri: null,
      capabilities: { textDocument: { publishDiagnostics: { versionSupport: true } } },
    },
    90_000,
  );
  if (answer.error) throw new Error(`initialize failed: ${answer.error.message}`);
  socket.notify("initialized", {});
  return socket;
}

/** The latest diagnostics received for `uri` that satisfy `match`. */
export function diagnosticsFor(
  socket: LspSocket,
  uri: string,
  match: (diagnostics: { message: string }[]) => boolean,
  what: string,
  timeoutMs = 60_000,
): Promise<LspMessage> {
  return socket.waitFor(
    (m) =>
      m.method === "textDocument/publishDiagnostics" &&
      m.params.uri === uri &&
      // Only the latest one for this file counts.
      socket.messages.filter((n) => n.method === "textDocument/publishDiagnostics" && n.params.uri === uri).at(-1) ===
        m &&
      match(m.params.diagnostics),
    what,
    timeoutMs,
  );
}
