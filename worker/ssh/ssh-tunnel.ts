/**
 * Bridges a WebSocket to a TCP connection to the container's sshd (frames
 * and flow control: protocol/ssh-tunnel.ts). The bytes are SSH's own,
 * encrypted end to end between the client and sshd: the Worker only
 * carries them.
 */
import { parseTunnelAck, TUNNEL_ACK_BYTES, TUNNEL_WINDOW_BYTES } from "../../protocol/ssh-tunnel";
import { describe } from "../errors";

export interface TunnelHooks {
  /** Told when the socket is bridged, with a way to close it from outside (its token was revoked). */
  begin(close: (code: number, reason: string) => void): void;
  /** Bytes passed either way (ssh traffic counts as use of the workspace). */
  traffic(): void;
  /** Once, when the tunnel is gone. */
  end(): void;
}

export function openTunnel(connection: Socket, hooks: TunnelHooks): Response {
  const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
  server.binaryType = "arraybuffer";
  server.accept();
  const writer = connection.writable.getWriter();
  const reader = connection.readable.getReader();
  let done = false;
  const finish = (code: number, reason: string) => {
    if (done) return;
    done = true;
    try {
      server.close(code, reason.slice(0, 120));
    } catch {
      // Closed already.
    }
    void writer.close().catch(() => {});
    void reader.cancel().catch(() => {});
    void Promise.resolve(connection.close()).catch(() => {});
    wakeReader();
    hooks.end();
  };
  hooks.begin(finish);

  // Client -> sshd, in order: each frame is written after the one before it; acked once written.
  let writing: Promise<void> = Promise.resolve();
  let written = 0;
  // sshd -> client: paused while the client has too much unacknowledged (once it acks at all).
  let flowControl = false;
  let unacked = 0;
  let resume: (() => void) | undefined;
  const wakeReader = () => {
    resume?.();
    resume = undefined;
  };

  server.addEventListener("message", (event) => {
    if (done) return;
    if (typeof event.data === "string") {
      const ack = parseTunnelAck(event.data);
      if (ack !== undefined) {
        flowControl = true;
        unacked = Math.max(0, unacked - ack);
        if (unacked <= TUNNEL_WINDOW_BYTES) wakeReader();
      }
      return;
    }
    const bytes = new Uint8Array(event.data as ArrayBuffer);
    hooks.traffic();
    writing = writing.then(async () => {
      if (done) return;
      await writer.write(bytes);
      written += bytes.byteLength;
      if (written >= TUNNEL_ACK_BYTES) {
        server.send(JSON.stringify({ ack: written }));
        written = 0;
      }
    });
    writing.catch((error) => finish(1011, `sshd went away: ${describe(error)}`));
  });
  server.addEventListener("close", () => finish(1000, "closed"));
  server.addEventListener("error", () => finish(1011, "the WebSocket failed"));

  void (async () => {
    try {
      for (;;) {
        while (flowControl && unacked > TUNNEL_WINDOW_BYTES && !done) {
          await new Promise<void>((resolve) => {
            resume = resolve;
          });
        }
        if (done) return;
        const next = await reader.read();
        if (next.done) break;
        hooks.traffic();
        unacked += next.value.byteLength;
        server.send(next.value);
      }
      finish(1000, "sshd closed the connection");
    } catch (error) {
      finish(1011, `sshd went away: ${describe(error)}`);
    }
  })();
  return new Response(null, { status: 101, webSocket: client });
}
