/** A terminal WebSocket as a test sees it: what came out, and ways to wait for it. */
import { inject } from "vitest";
import WebSocket from "ws";
import { Screen } from "./screen";
import { ownerWebSocket } from "./session";

export interface TerminalSocket {
  ws: WebSocket;
  /** Everything received on binary frames so far, decoded: the byte stream, escape sequences and all. */
  output(): string;
  /** Bytes received on binary frames so far. */
  received(): number;
  /** Text (JSON) frames received so far. */
  messages: unknown[];
  type(text: string): void;
  /** What the terminal shows: the output rendered by xterm.js (test/support/screen.ts), lines joined by "\n". */
  screen(): Promise<string>;
  /** Resolves with the screen's text once it matches. Output lines are asserted on this, never on the bytes. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Resolves with the byte stream once it matches: for escape sequences, which the screen does not show. */
  waitForBytes(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Sends a resize message, and resizes the rendered screen with it. */
  resize(cols: number, rows: number): void;
  closed: Promise<{ code: number; reason: string }>;
}

/**
 * Opens a terminal as the owner (or as whoever `headers` sign in: a
 * member's cookie or Access token) and waits for its `ready` message.
 * `wake: false` connects as the page's automatic reconnects do (`?wake=0`).
 */
export async function openTerminalSocket(
  workspaceId: string,
  name: string,
  {
    cols = 120,
    rows = 30,
    wake = true,
    headers,
  }: { cols?: number; rows?: number; wake?: boolean; headers?: Record<string, string> } = {},
) {
  const path = `/ws/workspaces/${workspaceId}/terminals/${name}?cols=${cols}&rows=${rows}${wake ? "" : "&wake=0"}`;
  const ws = headers ? memberWebSocket(path, headers) : await ownerWebSocket(path);
  const decoder = new TextDecoder();
  const screen = new Screen(cols, rows);
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
        screen.write(chunk, () => {
          for (const listener of listeners) listener();
        });
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
  void closed.then(() => screen.dispose());
  await ready;
  /** Resolves with `read()` once `pattern` matches it, checked after each chunk of output. */
  const waitUntil = (read: () => string, what: string, pattern: RegExp, timeoutMs: number) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const seen = read();
        if (pattern.test(seen)) {
          listeners.delete(check);
          clearTimeout(timer);
          resolve(seen);
        }
      };
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(
          new Error(`timed out waiting for ${pattern} on the ${what}; it shows: ${JSON.stringify(read().slice(-800))}`),
        );
      }, timeoutMs);
      listeners.add(check);
      check();
    });
  const socket: TerminalSocket = {
    ws,
    output: () => text,
    received: () => bytes,
    messages,
    type: (input) => ws.send(Buffer.from(input)),
    screen: () => screen.text(),
    waitFor: async (pattern, timeoutMs = 60_000) => {
      // What was received before the call is on the screen first.
      await screen.text();
      return waitUntil(() => screen.linesNow().join("\n"), "screen", pattern, timeoutMs);
    },
    waitForBytes: (pattern, timeoutMs = 60_000) => waitUntil(() => text, "byte stream", pattern, timeoutMs),
    resize: (cols, rows) => {
      ws.send(JSON.stringify({ type: "resize", cols, rows }));
      screen.resize(cols, rows);
    },
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

/** A WebSocket to the IDE under test with these headers (a member's cookie or Access token), from its origin. */
export function memberWebSocket(path: string, headers: Record<string, string>): WebSocket {
  const url = new URL(path, inject("baseUrl"));
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return new WebSocket(url, { headers: { Origin: inject("baseUrl"), ...headers } });
}
