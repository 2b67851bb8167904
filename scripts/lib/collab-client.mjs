// A co-editing client outside the browser (integration tests, the collaboration
// bench): a Y.Doc kept in step with a workspace's shared document over
// `/ws/workspaces/{id}/collab/file`, speaking y-protocols' sync and awareness
// messages as the page's y-websocket provider does.
import * as decoding from "lib0/decoding";
import * as encoding from "lib0/encoding";
import WebSocket from "ws";
import * as awarenessProtocol from "y-protocols/awareness";
import * as syncProtocol from "y-protocols/sync";
import * as Y from "yjs";

const MESSAGE_SYNC = 0;
const MESSAGE_AWARENESS = 1;
const MESSAGE_AUTH = 2;
/** A save on the socket (protocol/collab.ts COLLAB_MESSAGE_SAVE). */
const MESSAGE_SAVE = 100;
/** The name of the Y.Text in every shared document (protocol/collab.ts SHARED_TEXT). */
const SHARED_TEXT = "text";

/**
 * Connects to `url` (ws:) with `headers` (the Origin and a session cookie) and
 * resolves once the first sync is done.
 * @param {URL | string} url
 * @param {Record<string, string>} headers
 */
export async function connectCollab(url, headers) {
  const ws = new WebSocket(url, { headers });
  ws.binaryType = "nodebuffer";
  const doc = new Y.Doc();
  const awareness = new awarenessProtocol.Awareness(doc);
  /** @type {string[]} */
  const denied = [];
  /** @type {Set<() => void>} */
  const listeners = new Set();
  /** Answers to saves on the socket, by id. @type {Map<number, unknown>} */
  const saveAnswers = new Map();
  let lastSave = 0;
  let synced = false;
  /** @param {(encoder: encoding.Encoder) => void} write */
  const send = (write) => {
    const encoder = encoding.createEncoder();
    write(encoder);
    if (ws.readyState === WebSocket.OPEN) ws.send(encoding.toUint8Array(encoder));
  };
  doc.on("update", (update, origin) => {
    if (origin === ws) return;
    send((encoder) => {
      encoding.writeVarUint(encoder, MESSAGE_SYNC);
      syncProtocol.writeUpdate(encoder, update);
    });
  });
  ws.on("message", (data) => {
    const decoder = decoding.createDecoder(new Uint8Array(data));
    const type = decoding.readVarUint(decoder);
    if (type === MESSAGE_SYNC) {
      const encoder = encoding.createEncoder();
      encoding.writeVarUint(encoder, MESSAGE_SYNC);
      const kind = syncProtocol.readSyncMessage(decoder, encoder, doc, ws);
      if (encoding.length(encoder) > 1) ws.send(encoding.toUint8Array(encoder));
      if (kind === syncProtocol.messageYjsSyncStep2) synced = true;
    } else if (type === MESSAGE_AWARENESS) {
      awarenessProtocol.applyAwarenessUpdate(awareness, decoding.readVarUint8Array(decoder), ws);
    } else if (type === MESSAGE_AUTH) {
      decoding.readVarUint(decoder);
      denied.push(decoding.readVarString(decoder));
    } else if (type === MESSAGE_SAVE) {
      const saveId = decoding.readVarUint(decoder);
      saveAnswers.set(saveId, JSON.parse(decoding.readVarString(decoder)));
    }
    for (const listener of [...listeners]) listener();
  });
  const closed = new Promise((resolve) => {
    ws.on("close", (code, reason) => {
      resolve({ code, reason: reason.toString() });
      for (const listener of [...listeners]) listener();
    });
  });
  await new Promise((resolve, reject) => {
    ws.once("open", resolve);
    ws.once("unexpected-response", (_req, res) => reject(new Error(`HTTP ${res.statusCode} instead of an upgrade`)));
    ws.once("error", reject);
  });
  // Once open, an error is followed by "close", which `closed` reports; unheard, it would end the process.
  ws.on("error", () => {});
  send((encoder) => {
    encoding.writeVarUint(encoder, MESSAGE_SYNC);
    syncProtocol.writeSyncStep1(encoder, doc);
  });
  /** @type {(check: () => boolean, what: string, timeoutMs?: number) => Promise<void>} */
  const until = (check, what, timeoutMs = 30_000) =>
    new Promise((resolve, reject) => {
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
    /** @param {Record<string, unknown>} state */
    announce: (state) => {
      awareness.setLocalState(state);
      send((encoder) => {
        encoding.writeVarUint(encoder, MESSAGE_AWARENESS);
        encoding.writeVarUint8Array(encoder, awarenessProtocol.encodeAwarenessUpdate(awareness, [doc.clientID]));
      });
    },
    /**
     * Saves on the socket, behind the edits sent before; resolves with the answer
     * ({ saved: CollabSaved } or { error: { code, message } }).
     * @returns {Promise<unknown>}
     */
    save: async () => {
      const saveId = ++lastSave;
      send((encoder) => {
        encoding.writeVarUint(encoder, MESSAGE_SAVE);
        encoding.writeVarUint(encoder, saveId);
      });
      await until(() => saveAnswers.has(saveId), `the answer to save ${saveId}`);
      return saveAnswers.get(saveId);
    },
    close: () => {
      ws.close();
      awareness.destroy();
    },
  };
}
