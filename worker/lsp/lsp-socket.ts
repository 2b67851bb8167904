/**
 * A page's language-server WebSocket: each text frame is one JSON-RPC
 * message, checked here (a malformed one gets a JSON-RPC error back and goes
 * no further), then handed to the workspace's shared server for that language.
 */
import { describe } from "../errors";
import { parseClientFrame } from "./json-rpc";
import type { SharedLanguageServer } from "./shared-server";

export interface LanguageSocketHooks {
  /** Each message from the page (it counts as use of the workspace). */
  onMessage?: () => void;
  /** The socket is open; `close` ends it (its session ended). */
  onOpen?: (close: (code: number, reason: string) => void) => void;
  onClose?: () => void;
}

export function openLanguageServerSocket(
  server: SharedLanguageServer,
  { onMessage, onOpen, onClose }: LanguageSocketHooks = {},
): Response {
  const [client, socket] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
  // accept(), not hibernation: the shared server lives in this object's memory.
  socket.accept();
  const peer = server.connect({
    send: (message) => {
      try {
        socket.send(JSON.stringify(message));
      } catch {
        // Closed: its close listener ends this peer.
      }
    },
  });
  // Listeners never throw: an exception would close the socket without its close listener.
  socket.addEventListener("message", (event) => {
    try {
      onMessage?.();
      const frame = parseClientFrame(event.data as string | ArrayBuffer);
      if (!frame.ok) {
        socket.send(JSON.stringify(frame.reply));
        return;
      }
      peer.receive(frame.message);
    } catch (error) {
      console.error(`language server socket: ${describe(error)}`);
    }
  });
  let closed = false;
  const gone = () => {
    if (closed) return;
    closed = true;
    peer.close();
    onClose?.();
  };
  socket.addEventListener("close", gone);
  socket.addEventListener("error", gone);
  onOpen?.((code, reason) => {
    try {
      socket.close(code, reason);
    } catch {
      // Already closed.
    }
    gone();
  });
  return new Response(null, { status: 101, webSocket: client });
}
