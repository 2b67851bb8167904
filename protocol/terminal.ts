/**
 * The terminal wire format, shared by the Worker and the app.
 *
 * WebSocket `GET /ws/workspaces/{id}/terminals/{name}?cols=N&rows=N`:
 * - binary frames carry terminal bytes both ways (keystrokes up, screen down);
 * - text frames carry JSON {@link TerminalClientMessage} up and
 *   {@link TerminalServerMessage} down.
 * This is the format of `SandboxAddon` (`@cloudflare/sandbox/xterm`); `ack`,
 * `ping` and `pong` are additions that clients may ignore.
 */

/** tmux names: no "." or ":"; lowercase DNS-label-like so they fit URLs. */
export const TERMINAL_NAME_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;

export function isTerminalName(value: string): boolean {
  return TERMINAL_NAME_PATTERN.test(value);
}

/** The terminal a workspace opens first. */
export const DEFAULT_TERMINAL = "main";

export const MAX_COLS = 500;
export const MAX_ROWS = 200;

/**
 * Flow control: the server stops reading the terminal's output while more
 * than this many bytes it sent are not yet acknowledged as drawn. tmux then
 * skips redraws for the slow client instead of queueing them.
 */
export const FLOW_WINDOW_BYTES = 512 * 1024;
/** A client acknowledges at least every this many drawn bytes (well under the window). */
export const FLOW_ACK_EVERY_BYTES = 64 * 1024;

export type TerminalClientMessage =
  | { type: "resize"; cols: number; rows: number }
  /** Total bytes of binary frames drawn since the socket opened. Sending one turns flow control on. */
  | { type: "ack"; bytes: number }
  /** Asks for a `pong`: lets a client notice a socket that went silent. */
  | { type: "ping" };

export type TerminalServerMessage =
  | { type: "ready" }
  | { type: "exit"; code: number }
  | { type: "error"; message: string }
  | { type: "pong" }
  /** Input refused: the caller is a viewer, whose terminal only shows the output (sent once a socket). */
  | { type: "read-only"; message: string }
  /**
   * Answer to an automatic reconnect (`?wake=0`) while the workspace sleeps,
   * or failed to start a moment ago (`reason` says why): the client waits
   * for the user, or for the workspace to wake, instead of waking it.
   */
  | { type: "sleeping"; reason?: string };

/** `GET /api/workspaces/{id}/terminals`: one entry a terminal, oldest first. */
export interface TerminalInfo {
  name: string;
  /** What runs in the terminal's foreground (tmux `pane_current_command`). */
  command: string;
  /** True when something other than the shell runs: ending the terminal would stop it. */
  busy: boolean;
}

const SHELLS = new Set(["bash", "sh", "dash", "zsh", "fish", "login", "tmux"]);

export function isShellCommand(command: string): boolean {
  return SHELLS.has(command.replace(/^-/, ""));
}

/** Reads a client text frame; anything malformed is `undefined` (and ignored). */
export function parseClientMessage(text: string): TerminalClientMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const message = value as Record<string, unknown>;
  const type = message.type ?? (message.cols !== undefined ? "resize" : undefined);
  if (type === "resize") {
    const cols = clampSize(message.cols, MAX_COLS);
    const rows = clampSize(message.rows, MAX_ROWS);
    return cols && rows ? { type, cols, rows } : undefined;
  }
  if (type === "ack") {
    const bytes = message.bytes;
    return typeof bytes === "number" && Number.isSafeInteger(bytes) && bytes >= 0 ? { type, bytes } : undefined;
  }
  if (type === "ping") return { type };
  return undefined;
}

/** A positive integer size up to `max`, or undefined. */
export function clampSize(value: unknown, max: number): number | undefined {
  const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  if (typeof n !== "number" || !Number.isFinite(n) || n < 1) return undefined;
  return Math.min(Math.floor(n), max);
}
