/**
 * A co-editing client for tests: a Y.Doc kept in step with a workspace's
 * shared document over `/ws/workspaces/{id}/collab/file`, speaking
 * y-protocols' sync and awareness messages as the page's provider does.
 */
import * as decoding from "lib0/decoding";
import * as encoding from "lib0/encoding";
import { inject } from "vitest";
import WebSocket from "ws";
import * as awarenessProtocol from "y-protocols/awareness";
import * as syncProtocol from "y-protocols/sync";
import * as Y from "yjs";
import { SHARED_TEXT } from "../../protocol/collab";
import { ownerCookie } from "./session";

export interface CollabClient {
  doc: Y.Doc;
  text: Y.Text;
  awareness: awarenessProtocol.Awareness;
  ws: WebSocket;
  /** Permission-denied reasons the server sent. */
  denied: string[];
  closed: Promise<{ code: number; reason: string }>;
  /** Resolves once `check` holds (checked after each message); rejects after `timeoutMs`. */
  until(check: () => boolean, what: string, timeoutMs?: number): Promise<void>;
  announce(state: Record<string, unknown>): void;
  close(): void;
}

/** Connects as the owner, or with `headers` (a guest's). Resolves once the first sync is done. */
export async function openCollab(
  workspaceId: string,
  path: string,
  headers?: Record<string, string>,
): Promise<CollabClient> {
  const url = new URL(`/ws/workspaces/${workspaceId}/collab/file`, inject("baseUrl"));
  url.protocol = "ws:";
  url.searchParams.set("path", path);
  const ws = new WebSocket(url, {
    headers: headers ?? { Origin: inject("baseUrl"), Cookie: await ownerCookie() },
  });
  ws.binaryType = "nodebuffer";
  const doc = new Y.Doc();
  const awareness = new awarenessProtocol.Awareness(doc);
  const denied: string[] = [];
  const listeners = new Set<() => void>();
  let synced = false;
  const send = (write: (encoder: encoding.Encoder) => void) => {
    const encoder = encoding.createEncoder();
    write(encoder);
    if (ws.readyState === WebSocket.OPEN) ws.send(encoding.toUint8Array(encoder));
  };
  doc.on("update", (update: Uint8Array, origin: unknown) => {
    if (origin === ws) return;
    send((encoder) => {
      encoding.writeVarUint(encoder, 0);
      syncProtocol.writeUpdate(encoder, update);
    });
  });
  ws.on("message", (data: Buffer) => {
    const decoder = decoding.createDecoder(new Uint8Array(data));
    const type = decoding.readVarUint(decoder);
    if (type === 0) {
      const encoder = encoding.createEncoder();
      encoding.writeVarUint(encoder, 0);
      const kind = syncProtocol.readSyncMessage(decoder, encoder, doc, ws);
      if (encoding.length(encoder) > 1) ws.send(encoding.toUint8Array(encoder));
      if (kind === syncProtocol.messageYjsSyncStep2) synced = true;
    } else if (type === 1) {
      awarenessProtocol.applyAwarenessUpdate(awareness, decoding.readVarUint8Array(decoder), ws);
    } else if (type === 2) {
      decoding.readVarUint(decoder);
      denied.push(decoding.readVarString(decoder));
    }
    for (const listener of [...listeners]) listener();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.on("close", (code, reason) => {
      resolve({ code, reason: reason.toString() });
      for (const listener of [...listeners]) listener();
    });
  });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("unexpected-response", (_req, res) => reject(new Error(`HTTP ${res.statusCode} instead of an upgrade`)));
    ws.once("error", reject);
  });
  send((encoder) => {
    encoding.writeVarUint(encoder, 0);
    syncProtocol.writeSyncStep1(encoder, doc);
  });
  const until = (check: () => boolean, what: string, timeoutMs = 30_000) =>
    new Promise<void>((resolve, reject) => {
      const listener = () => {
        if (!check()) return;
        listeners.delete(listener);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        listeners.delete(listener);
        reject(
          new Error(`timed out waiting for ${what}; text: ${JSON.stringify(doc.getText(SHARED_TEXT).toString())}`),
        );
      }, timeoutMs);
      listeners.add(listener);
      listener();
    });
  await until(() => synced || ws.readyState === WebSocket.CLOSED, "the first sync");
  if (!synced) throw new Error(`closed before the first sync: ${JSON.stringify(await closed)}`);
  return {
    doc,
    text: doc.getText(SHARED_TEXT),
    awareness,
    ws,
    denied,
    closed,
    until,
    announce: (state) => {
      awareness.setLocalState(state);
      send((encoder) => {
        encoding.writeVarUint(encoder, 1);
        encoding.writeVarUint8Array(encoder, awarenessProtocol.encodeAwarenessUpdate(awareness, [doc.clientID]));
      });
    },
    close: () => {
      ws.close();
      awareness.destroy();
    },
  };
}
