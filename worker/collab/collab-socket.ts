/**
 * A page's co-editing WebSocket: binary y-protocols frames to and from one
 * shared document (shared-document.ts). A frame the document cannot take
 * closes the socket with a code that says why (protocol/collab.ts
 * CollabClose); nothing a page sends throws out of a listener.
 */
import { CollabClose, type CollabSaveAnswer, MAX_COLLAB_FRAME_BYTES } from "../../protocol/collab";
import { describe } from "../errors";
import { BadFrame, type Peer, type SharedDocument } from "./shared-document";

export interface CollabSocketHooks {
  /** Each frame from the page (it counts as use of the workspace). */
  onMessage?: () => void;
  /** The socket is open; `close` ends it (its session or membership ended). */
  onOpen?: (close: (code: number, reason: string) => void) => void;
  /** The socket closed, whoever closed it. */
  onClose?: () => void;
  /** A save asked for on the socket (none: the peer's saves are refused). */
  onSave?: () => Promise<CollabSaveAnswer>;
}

export function openCollabSocket(
  shared: SharedDocument,
  who: Pick<Peer, "canWrite" | "user">,
  { onMessage, onOpen, onClose, onSave }: CollabSocketHooks = {},
): Response {
  const [client, socket] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
  // Binary frames as ArrayBuffers (workerd's default is Blob).
  socket.binaryType = "arraybuffer";
  // accept(), not hibernation: the document lives in this object's memory.
  socket.accept();
  let closed = false;
  const gone = () => {
    if (closed) return;
    closed = true;
    shared.disconnect(peer);
    onClose?.();
  };
  const close = (code: number, reason: string) => {
    try {
      // A close reason is at most 123 bytes.
      socket.close(code, reason.length > 120 ? `${reason.slice(0, 117)}...` : reason);
    } catch {
      // Already closed.
    }
    gone();
  };
  const peer: Peer = { ...who, send: (message) => socket.send(message), ...(onSave ? { save: onSave } : {}) };
  socket.addEventListener("message", (event) => {
    try {
      onMessage?.();
      if (typeof event.data === "string") {
        close(CollabClose.TEXT_FRAME, "Text frame: this socket speaks binary y-protocols messages.");
        return;
      }
      const bytes = new Uint8Array(event.data as ArrayBuffer);
      if (bytes.byteLength > MAX_COLLAB_FRAME_BYTES) {
        close(CollabClose.TOO_LARGE, `Frame over ${MAX_COLLAB_FRAME_BYTES} bytes.`);
        return;
      }
      shared.receive(peer, bytes);
    } catch (error) {
      if (error instanceof BadFrame) {
        close(CollabClose.BAD_FRAME, error.message);
      } else {
        console.error(`collab socket: ${describe(error)}`);
        close(1011, "The document could not take this message.");
      }
    }
  });
  socket.addEventListener("close", gone);
  socket.addEventListener("error", gone);
  shared.connect(peer);
  onOpen?.(close);
  return new Response(null, { status: 101, webSocket: client });
}
