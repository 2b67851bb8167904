/**
 * An xterm.js addon that connects a terminal to `/ws/workspaces/{id}/terminals/{name}`
 * and keeps it connected: it reconnects after every drop, at once when the
 * page becomes visible or the network comes back, with jittered backoff
 * otherwise, and never gives up while the page is open. It also notices
 * sockets that go silent without closing, and acknowledges drawn output so
 * the server can pace a flood (see FLOW_WINDOW_BYTES).
 *
 * Same wire format as `SandboxAddon` of `@cloudflare/sandbox/xterm`, which
 * gives up after 10 attempts.
 */
import type { IDisposable, ITerminalAddon, Terminal } from "@xterm/xterm";
import { FLOW_ACK_EVERY_BYTES, type TerminalClientMessage, type TerminalServerMessage } from "../../protocol/terminal";
import type { TerminalsApi } from "../api/workspace";
import { isOnlyReports } from "./terminal-reports";

export type ConnectionState = "connecting" | "connected" | "reconnecting" | "exited" | "sleeping";

/** Silence after which the client asks the server whether it is still there. */
const PING_AFTER_MS = 10_000;
/** Silence after which the socket counts as dead and is replaced. */
const DEAD_AFTER_MS = 20_000;
const MAX_BACKOFF_MS = 15_000;
/** While the workspace sleeps, how often to look (without waking it) whether it woke. */
const SLEEP_PROBE_MS = 10_000;

/**
 * How long to wait before reconnect attempt `attempt` (0-based): the first at
 * once, then doubling from 500 ms up to 15 s, with jitter so many tabs do not
 * reconnect in step after a server restart. There is no last attempt.
 */
export function reconnectDelay(attempt: number, random = Math.random()): number {
  const base = attempt === 0 ? 0 : Math.min(MAX_BACKOFF_MS, 500 * 2 ** Math.min(attempt - 1, 30));
  return base * (0.5 + random * 0.5);
}

export interface TerminalConnectionOptions {
  terminals: TerminalsApi;
  name: string;
  onStateChange?: (state: ConnectionState) => void;
}

export class TerminalConnection implements ITerminalAddon {
  private terminal: Terminal | undefined;
  private socket: WebSocket | undefined;
  private state: ConnectionState = "connecting";
  private attempts = 0;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private heartbeat: ReturnType<typeof setInterval> | undefined;
  private lastHeard = 0;
  private disposed = false;
  private started = false;
  private armed: { ctrl: boolean; alt: boolean; onUsed: () => void } | undefined;
  private exitCode: number | undefined;
  /** The server said the workspace sleeps: reconnect only when the user types (or it wakes). */
  private asleep = false;
  /** Why it sleeps, when that is a failed start rather than a choice. */
  private asleepReason: string | undefined;
  private lastProbe = 0;
  private written = 0;
  private acked = 0;
  private readonly disposables: IDisposable[] = [];
  private readonly encoder = new TextEncoder();

  constructor(private readonly options: TerminalConnectionOptions) {}

  get connectionState(): ConnectionState {
    return this.state;
  }

  activate(terminal: Terminal): void {
    this.terminal = terminal;
    this.disposables.push(
      terminal.onData((data) => this.input(data)),
      // Mouse reports in the X10 encoding arrive as binary strings.
      terminal.onBinary((data) => this.sendBytes(Uint8Array.from(data, (c) => c.charCodeAt(0) & 0xff))),
      terminal.onResize(({ cols, rows }) => this.sendMessage({ type: "resize", cols, rows })),
    );
    window.addEventListener("visibilitychange", this.wakeUp);
    window.addEventListener("online", this.wakeUp);
    this.heartbeat = setInterval(() => this.checkAlive(), 2_000);
  }

  /**
   * Opens the first connection. The view calls this once the terminal has
   * its real size: attaching at a guessed size and growing right after makes
   * tmux pull history into the grown pane (lines a program had cleared).
   */
  start(): void {
    if (this.started || this.disposed) return;
    this.started = true;
    this.connect();
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.heartbeat);
    window.removeEventListener("visibilitychange", this.wakeUp);
    window.removeEventListener("online", this.wakeUp);
    for (const d of this.disposables) d.dispose();
    this.socket?.close(1000, "closed");
    this.socket = undefined;
  }

  /** The workspace was woken elsewhere (the header, another tab): a sleeping terminal reconnects now. */
  workspaceWoke(): void {
    if (this.disposed || this.state !== "sleeping" || this.socket) return;
    this.connect(false);
  }

  /** Closes the socket the way a network drop would; the addon reconnects by itself. */
  drop(): void {
    this.socket?.close(4000, "dropped");
  }

  private setState(state: ConnectionState): void {
    if (this.state === state) return;
    this.state = state;
    this.options.onStateChange?.(state);
  }

  private url(wake: boolean): string {
    const { terminals, name } = this.options;
    const size = this.terminal ? { cols: this.terminal.cols, rows: this.terminal.rows } : undefined;
    return terminals.socketUrl(name, size, wake);
  }

  /**
   * Opening the page or typing wakes the workspace; automatic reconnects
   * (`wake` false) do not, so a sleeping workspace stays asleep.
   */
  private connect(wake = this.attempts === 0 && this.state === "connecting"): void {
    if (this.disposed) return;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.asleep = false;
    this.lastProbe = Date.now();
    const socket = new WebSocket(this.url(wake));
    socket.binaryType = "arraybuffer";
    this.socket = socket;
    this.exitCode = undefined;
    this.written = 0;
    this.acked = 0;
    this.lastHeard = Date.now();
    // Events of a socket that was replaced are ignored.
    const current = () => this.socket === socket && !this.disposed;

    socket.addEventListener("message", (event) => {
      if (!current()) return;
      this.lastHeard = Date.now();
      if (typeof event.data === "string") {
        this.serverMessage(event.data);
        return;
      }
      const bytes = new Uint8Array(event.data as ArrayBuffer);
      // Acknowledge only what xterm.js has drawn, so a flood cannot pile up in the page.
      this.terminal?.write(bytes, () => {
        if (!current()) return;
        this.written += bytes.byteLength;
        if (this.written - this.acked >= FLOW_ACK_EVERY_BYTES) {
          this.acked = this.written;
          this.sendMessage({ type: "ack", bytes: this.written });
        }
      });
    });
    socket.addEventListener("close", () => {
      if (!current()) return;
      this.socket = undefined;
      if (this.asleep) {
        if (this.state !== "sleeping") {
          this.terminal?.write(
            this.asleepReason
              ? `\r\n\x1b[31m[${this.asleepReason}]\x1b[0m\r\n\x1b[2m[It tries again by itself. Press any key to try now.]\x1b[0m\r\n`
              : "\r\n\x1b[2m[The workspace is asleep. Press any key to wake it.]\x1b[0m\r\n",
          );
        }
        this.setState("sleeping");
        return;
      }
      if (this.exitCode !== undefined) {
        this.setState("exited");
        this.terminal?.write(
          `\r\n\x1b[2m[Terminal closed with code ${this.exitCode}. Press Enter to start a new shell.]\x1b[0m\r\n`,
        );
        return;
      }
      this.scheduleReconnect();
    });
  }

  private serverMessage(text: string): void {
    let message: TerminalServerMessage;
    try {
      message = JSON.parse(text) as TerminalServerMessage;
    } catch {
      return;
    }
    if (message.type === "ready") {
      this.attempts = 0;
      // tmux redraws the whole screen for a new client.
      this.terminal?.reset();
      this.setState("connected");
      this.sendMessage({ type: "ack", bytes: 0 });
      if (this.terminal) this.sendMessage({ type: "resize", cols: this.terminal.cols, rows: this.terminal.rows });
    } else if (message.type === "exit") {
      this.exitCode = message.code;
    } else if (message.type === "sleeping") {
      this.asleep = true;
      this.asleepReason = message.reason;
    } else if (message.type === "error") {
      this.terminal?.write(`\r\n\x1b[31m[${message.message}]\x1b[0m\r\n`);
    } else if (message.type === "read-only") {
      this.terminal?.write(`\r\n\x1b[33m[${message.message}]\x1b[0m\r\n`);
    }
  }

  private scheduleReconnect(): void {
    if (this.disposed) return;
    this.setState("reconnecting");
    const delay = reconnectDelay(this.attempts++);
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  /** Page visible again or network back: don't wait for the backoff. */
  private readonly wakeUp = () => {
    if (this.disposed || document.visibilityState === "hidden") return;
    if (this.state === "reconnecting") {
      this.attempts = 0;
      this.connect();
    } else if (this.state === "connected") {
      this.sendMessage({ type: "ping" });
    }
  };

  private checkAlive(): void {
    const socket = this.socket;
    if (this.state === "sleeping" && !this.socket && Date.now() - this.lastProbe > SLEEP_PROBE_MS) {
      // Woken elsewhere (the header's Wake, another tab)? Look without waking it.
      this.connect(false);
      return;
    }
    if (!socket || this.disposed) return;
    const silence = Date.now() - this.lastHeard;
    if (silence > DEAD_AFTER_MS) {
      // No close event will come for a silently dead socket: replace it.
      this.socket = undefined;
      socket.close(4001, "silent");
      this.scheduleReconnect();
    } else if (silence > PING_AFTER_MS && socket.readyState === WebSocket.OPEN) {
      this.sendMessage({ type: "ping" });
    }
  }

  /**
   * Modifiers for the next input (the touch key bar's Ctrl and Alt, held for
   * one key of the on-screen keyboard): Ctrl makes a control character,
   * Alt prefixes Escape. `onUsed` runs once they were applied.
   */
  armModifiers(modifiers: { ctrl: boolean; alt: boolean }, onUsed: () => void): void {
    this.armed = modifiers.ctrl || modifiers.alt ? { ...modifiers, onUsed } : undefined;
  }

  /** Sends keys as if typed (the touch key bar). */
  type(data: string): void {
    this.input(data);
  }

  private applyModifiers(data: string): string {
    const armed = this.armed;
    if (!armed) return data;
    this.armed = undefined;
    armed.onUsed();
    let out = data;
    if (armed.ctrl && data.length === 1) {
      const code = data.toUpperCase().charCodeAt(0);
      // Ctrl+@ to Ctrl+_ (Ctrl+A is 1, Ctrl+[ is Escape); Ctrl+Space is NUL.
      if (code >= 64 && code <= 95) out = String.fromCharCode(code - 64);
      else if (data === " ") out = "\0";
      else if (data === "?") out = "\x7f";
    }
    return armed.alt ? `\x1b${out}` : out;
  }

  private input(raw: string): void {
    if (this.state === "sleeping" && isOnlyReports(raw)) return;
    const data = this.applyModifiers(raw);
    if (this.state === "sleeping") {
      this.setState("connecting");
      this.attempts = 0;
      this.connect(true);
      return;
    }
    if (this.state === "exited") {
      if (data === "\r") {
        this.setState("connecting");
        this.connect();
      }
      return;
    }
    this.sendBytes(this.encoder.encode(data));
  }

  private sendBytes(bytes: Uint8Array): void {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(bytes);
  }

  private sendMessage(message: TerminalClientMessage): void {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
  }
}
