import type { Transport } from "@codemirror/lsp-client";
import { socketUrl } from "../api/http";

/** Reconnects wait 1 s, then twice as long each time, up to 15 s. */
const RETRY_MS = [1_000, 2_000, 4_000, 8_000, 15_000];

/**
 * One language server's WebSocket (`/ws/workspaces/{id}/lsp/{language}`),
 * kept open while the page needs it: each open gives lsp-client a new
 * {@link Transport}; a drop is reported and retried with backoff. Automatic
 * reconnects ask not to wake a sleeping workspace (`?wake=0`).
 */
export class ServerSocket {
  private socket: WebSocket | undefined;
  private attempts = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly events: { open(transport: Transport): void; drop(reason: string): void },
  ) {}

  connect(wake = true): void {
    if (this.closed || this.socket) return;
    clearTimeout(this.timer);
    const url = socketUrl(this.url);
    if (!wake) url.searchParams.set("wake", "0");
    const socket = new WebSocket(url);
    this.socket = socket;
    let handlers: ((message: string) => void)[] = [];
    socket.onopen = () => {
      this.attempts = 0;
      this.events.open({
        send: (message) => {
          if (socket.readyState !== WebSocket.OPEN) throw new Error("The language server is not connected.");
          socket.send(message);
        },
        subscribe: (handler) => {
          handlers.push(handler);
        },
        unsubscribe: (handler) => {
          handlers = handlers.filter((h) => h !== handler);
        },
      });
    };
    socket.onmessage = (event) => {
      for (const handler of handlers) handler(String(event.data));
    };
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      this.socket = undefined;
      handlers = [];
      if (this.closed) return;
      this.events.drop(event.reason || "The connection to the language server dropped.");
      const delay = RETRY_MS[Math.min(this.attempts, RETRY_MS.length - 1)] as number;
      this.attempts++;
      this.timer = setTimeout(() => this.connect(false), delay);
    };
  }

  /** Drops the socket now (a test hook; the page reconnects as after any drop). */
  drop(): void {
    this.socket?.close();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.socket?.close();
    this.socket = undefined;
  }
}
