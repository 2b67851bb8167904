/** A terminal WebSocket as a test sees it: what came out, and ways to wait for it. */
import type WebSocket from "ws";
import { ownerWebSocket } from "./session";

export interface TerminalSocket {
  ws: WebSocket;
  /** Everything received on binary frames so far, decoded. */
  output(): string;
  /** Bytes received on binary frames so far. */
  received(): number;
  /** Text (JSON) frames received so far. */
  messages: unknown[];
  type(text: string): void;
  /** Resolves with the output once it matches. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  closed: Promise<{ code: number; reason: string }>;
}

/**
 * Opens a terminal as the owner and waits for its `ready` message. `wake:
 * false` connects as the page's automatic reconnects do (`?wake=0`).
 */
export async function openTerminalSocket(
  workspaceId: string,
  name: string,
  { cols = 120, rows = 30, wake = true }: { cols?: number; rows?: number; wake?: boolean } = {},
) {
  const ws = await ownerWebSocket(
    `/ws/workspaces/${workspaceId}/terminals/${name}?cols=${cols}&rows=${rows}${wake ? "" : "&wake=0"}`,
  );
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  const messages: unknown[] = [];
  const listeners = new Set<() => void>();
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.on("close", (code, reason) => resolve({ code, reason: reason.toString() }));
  });
  const ready = new Promise<void>((resolve, reject) => {
    ws.on("message", (data, isBinary) => {
      if (isBinary) {
        const chunk = data as Buffer;
        bytes += chunk.byteLength;
        text += decoder.decode(chunk, { stream: true });
        // Keep memory bounded during floods: tests look at recent output.
        if (text.length > 2_000_000) text = text.slice(-1_000_000);
      } else {
        const message = JSON.parse(data.toString());
        messages.push(message);
        if (message.type === "ready") resolve();
      }
      for (const listener of listeners) listener();
    });
    ws.on("unexpected-response", (_req, res) => reject(new Error(`HTTP ${res.statusCode} instead of an upgrade`)));
    ws.on("error", reject);
    void closed.then(({ code, reason }) => reject(new Error(`closed before ready: ${code} ${reason}`)));
  });
  await ready;
  const socket: TerminalSocket = {
    ws,
    output: () => text,
    received: () => bytes,
    messages,
    type: (input) => ws.send(Buffer.from(input)),
    waitFor: (pattern, timeoutMs = 60_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (pattern.test(text)) {
            listeners.delete(check);
            clearTimeout(timer);
            resolve(text);
          }
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`timed out waiting for ${pattern}; last output: ${JSON.stringify(text.slice(-500))}`));
        }, timeoutMs);
        listeners.add(check);
        check();
      }),
    closed,
  };
  return socket;
}

/** A random marker a command prints, so the test matches the output and not the echoed command line. */
export function marker(): { command: string; pattern: RegExp } {
  const n = Math.floor(Math.random() * 1e6);
  // The shell computes the number: the typed line shows `$((n+1))`, the output shows the sum.
  return { command: `echo mark-$((${n}+1))`, pattern: new RegExp(`mark-${n + 1}`) };
}
