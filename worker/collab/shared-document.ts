/**
 * One shared Yjs document and the pages connected to it, speaking the
 * standard y-protocols messages (sync and awareness, as y-websocket frames
 * them: a varUint message type, then the protocol's own message). Pure: a
 * peer is anything with `send`; the socket around it is collab-socket.ts.
 *
 * A peer without write access (a viewer) may read the document and show its
 * cursor (awareness), but its document updates are refused with y-protocols'
 * permission-denied message and never applied.
 */
import * as decoding from "lib0/decoding";
import * as encoding from "lib0/encoding";
import * as authProtocol from "y-protocols/auth";
import * as awarenessProtocol from "y-protocols/awareness";
import * as syncProtocol from "y-protocols/sync";
import * as Y from "yjs";
import {
  COLLAB_MESSAGE_SAVE,
  type CollabSaveAnswer,
  type CollabUser,
  MAX_AWARENESS_CLIENTS_PER_PEER,
  MAX_AWARENESS_STATE_BYTES,
  SHARED_TEXT,
} from "../../protocol/collab";
import { ErrorCode } from "../../protocol/errors";
import { textEdits } from "./text-merge";

export const MESSAGE_SYNC = 0;
export const MESSAGE_AWARENESS = 1;
export const MESSAGE_AUTH = 2;
export const MESSAGE_QUERY_AWARENESS = 3;
/** A save on the socket (protocol/collab.ts). */
export const MESSAGE_SAVE = COLLAB_MESSAGE_SAVE;

export interface Peer {
  send(message: Uint8Array): void;
  readonly canWrite: boolean;
  /** Stamped on every awareness state this peer sends. */
  readonly user: CollabUser;
  /** Writes the document to disk for this peer's save message; without it (a viewer), saves are refused. */
  save?(): Promise<CollabSaveAnswer>;
}

/** A frame this server cannot take: the socket closes with CollabClose.BAD_FRAME and this message. */
export class BadFrame extends Error {}

/** The transaction origin of edits the server makes itself (a change on disk). */
export const DISK_ORIGIN = "disk";

export class SharedDocument {
  readonly doc = new Y.Doc();
  /** Called with every update before it is sent to the peers (the edit log). */
  log: ((update: Uint8Array) => void) | undefined;
  readonly text: Y.Text;
  readonly awareness: awarenessProtocol.Awareness;
  /** Each peer and the awareness client ids it speaks for. */
  private readonly peers = new Map<Peer, Set<number>>();

  constructor(state?: Uint8Array) {
    if (state) Y.applyUpdate(this.doc, state);
    this.text = this.doc.getText(SHARED_TEXT);
    this.awareness = new awarenessProtocol.Awareness(this.doc);
    // The server is not a participant.
    this.awareness.setLocalState(null);
    this.doc.on("update", (update: Uint8Array, origin: unknown) => {
      // Stored first: a Durable Object's output gate then holds the broadcast below until it is durable.
      this.log?.(update);
      const message = frame(MESSAGE_SYNC, (encoder) => syncProtocol.writeUpdate(encoder, update));
      for (const peer of this.peers.keys()) if (peer !== origin) safeSend(peer, message);
    });
    this.awareness.on(
      "update",
      ({ added, updated, removed }: { added: number[]; updated: number[]; removed: number[] }, origin: unknown) => {
        const owned = this.peers.get(origin as Peer);
        if (owned) {
          for (const id of [...added, ...updated]) owned.add(id);
          for (const id of removed) owned.delete(id);
        }
        const changed = [...added, ...updated, ...removed];
        const message = frame(MESSAGE_AWARENESS, (encoder) =>
          encoding.writeVarUint8Array(encoder, awarenessProtocol.encodeAwarenessUpdate(this.awareness, changed)),
        );
        for (const peer of this.peers.keys()) safeSend(peer, message);
      },
    );
  }

  get size(): number {
    return this.peers.size;
  }

  /** A page connected: it gets the server's state vector (sync step 1) and everyone's awareness. */
  connect(peer: Peer): void {
    this.peers.set(peer, new Set());
    peer.send(frame(MESSAGE_SYNC, (encoder) => syncProtocol.writeSyncStep1(encoder, this.doc)));
    const states = [...this.awareness.getStates().keys()];
    if (states.length > 0) {
      peer.send(
        frame(MESSAGE_AWARENESS, (encoder) =>
          encoding.writeVarUint8Array(encoder, awarenessProtocol.encodeAwarenessUpdate(this.awareness, states)),
        ),
      );
    }
  }

  /** A page went away: its cursors go with it. */
  disconnect(peer: Peer): void {
    const owned = this.peers.get(peer);
    if (!owned) return;
    this.peers.delete(peer);
    awarenessProtocol.removeAwarenessStates(this.awareness, [...owned], null);
  }

  /** One frame from a page; throws BadFrame when it is not a message this server takes. */
  receive(peer: Peer, data: Uint8Array): void {
    if (!this.peers.has(peer)) return;
    try {
      const decoder = decoding.createDecoder(data);
      const type = decoding.readVarUint(decoder);
      switch (type) {
        case MESSAGE_SYNC:
          this.receiveSync(peer, decoder);
          return;
        case MESSAGE_AWARENESS:
          this.receiveAwareness(peer, decoding.readVarUint8Array(decoder));
          return;
        case MESSAGE_SAVE:
          this.receiveSave(peer, decoding.readVarUint(decoder));
          return;
        case MESSAGE_QUERY_AWARENESS:
          peer.send(
            frame(MESSAGE_AWARENESS, (encoder) =>
              encoding.writeVarUint8Array(
                encoder,
                awarenessProtocol.encodeAwarenessUpdate(this.awareness, [...this.awareness.getStates().keys()]),
              ),
            ),
          );
          return;
        default:
          throw new BadFrame(`Unknown message type ${type}: expected sync (0), awareness (1) or query awareness (3).`);
      }
    } catch (error) {
      if (error instanceof BadFrame) throw error;
      throw new BadFrame(`Not a y-protocols message: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private receiveSync(peer: Peer, decoder: decoding.Decoder): void {
    const kind = decoding.readVarUint(decoder);
    if (kind === syncProtocol.messageYjsSyncStep1) {
      const stateVector = decoding.readVarUint8Array(decoder);
      peer.send(
        frame(MESSAGE_SYNC, (encoder) => syncProtocol.writeSyncStep2(encoder, this.doc, checkStateVector(stateVector))),
      );
      return;
    }
    if (kind !== syncProtocol.messageYjsSyncStep2 && kind !== syncProtocol.messageYjsUpdate) {
      throw new BadFrame(`Unknown sync message ${kind}.`);
    }
    const update = decoding.readVarUint8Array(decoder);
    if (!peer.canWrite) {
      // A viewer's answer to our step 1 carries nothing we lack; anything it sends is refused.
      if (kind === syncProtocol.messageYjsUpdate || !isEmptyUpdate(update)) {
        peer.send(
          frame(MESSAGE_AUTH, (encoder) =>
            authProtocol.writePermissionDenied(encoder, "Viewers cannot change this document."),
          ),
        );
      }
      return;
    }
    Y.applyUpdate(this.doc, update, peer);
  }

  /**
   * A save asked for on the socket, answered on it. The page's edits sent
   * before it are in the document already (each frame is applied as it
   * comes), so the save has them.
   */
  private receiveSave(peer: Peer, id: number): void {
    const answer = (body: CollabSaveAnswer) =>
      safeSend(
        peer,
        frame(MESSAGE_SAVE, (encoder) => {
          encoding.writeVarUint(encoder, id);
          encoding.writeVarString(encoder, JSON.stringify(body));
        }),
      );
    if (!peer.canWrite || !peer.save) {
      answer({ error: { code: ErrorCode.FORBIDDEN, message: "Viewers cannot save this file." } });
      return;
    }
    void peer.save().then(answer);
  }

  /**
   * Awareness from a page: only for client ids it owns, new ones (a few at
   * most) or ones its own user's older socket holds, each stamped with the
   * peer's user and no larger than MAX_AWARENESS_STATE_BYTES, since every
   * other page receives it.
   */
  private receiveAwareness(peer: Peer, update: Uint8Array): void {
    const owned = this.peers.get(peer) as Set<number>;
    const holders = new Map<number, Peer>();
    for (const [other, ids] of this.peers) if (other !== peer) for (const id of ids) holders.set(id, other);
    const decoder = decoding.createDecoder(update);
    const encoder = encoding.createEncoder();
    const count = decoding.readVarUint(decoder);
    const entries: [number, number, string][] = [];
    const claimed = new Set(owned);
    for (let i = 0; i < count; i++) {
      const clientId = decoding.readVarUint(decoder);
      const clock = decoding.readVarUint(decoder);
      const json = decoding.readVarString(decoder);
      const holder = owned.has(clientId) ? undefined : holders.get(clientId);
      if (holder) {
        // Another person's id is never spoken for. The same person's is a page
        // that reconnected before its old socket was seen to close: the id
        // moves to the new socket (else its state would wait for that close).
        if (holder.user.id !== peer.user.id) continue;
        this.peers.get(holder)?.delete(clientId);
        holders.delete(clientId);
      }
      // Measured as UTF-16 units: at most 3 bytes each in UTF-8, never under-counted by more.
      if (json.length > MAX_AWARENESS_STATE_BYTES) {
        throw new BadFrame(
          `An awareness state of ${json.length} characters is over the limit of ${MAX_AWARENESS_STATE_BYTES}: publish less (fewer open files).`,
        );
      }
      claimed.add(clientId);
      if (claimed.size > MAX_AWARENESS_CLIENTS_PER_PEER) {
        throw new BadFrame(
          `One connection may speak for at most ${MAX_AWARENESS_CLIENTS_PER_PEER} awareness clients; open another connection instead.`,
        );
      }
      const state = JSON.parse(json) as unknown;
      const stamped =
        state !== null && typeof state === "object" && !Array.isArray(state) ? { ...state, user: peer.user } : null;
      entries.push([clientId, clock, JSON.stringify(stamped)]);
    }
    encoding.writeVarUint(encoder, entries.length);
    for (const [clientId, clock, state] of entries) {
      encoding.writeVarUint(encoder, clientId);
      encoding.writeVarUint(encoder, clock);
      encoding.writeVarString(encoder, state);
    }
    awarenessProtocol.applyAwarenessUpdate(this.awareness, encoding.toUint8Array(encoder), peer);
  }

  /** Makes the text `target` by the edits a diff finds (cursors outside them stay put), as the server's own. */
  replaceText(target: string): void {
    const edits = textEdits(this.text.toString(), target);
    if (edits.length === 0) return;
    this.doc.transact(() => {
      // Last first: each edit's offsets are against the text before any of them.
      for (const edit of edits.reverse()) {
        if (edit.deleteCount > 0) this.text.delete(edit.from, edit.deleteCount);
        if (edit.insert) this.text.insert(edit.from, edit.insert);
      }
    }, DISK_ORIGIN);
  }

  /** An update from storage (the edit log): applied as a peer's would be, sent to nobody (no peer yet). */
  apply(update: Uint8Array): void {
    Y.applyUpdate(this.doc, update);
  }

  /** The whole document, for storage. */
  encode(): Uint8Array {
    return Y.encodeStateAsUpdate(this.doc);
  }

  destroy(): void {
    this.awareness.destroy();
    this.doc.destroy();
  }
}

function checkStateVector(stateVector: Uint8Array): Uint8Array {
  // Throws on a malformed vector, before an answer is made from it.
  Y.decodeStateVector(stateVector);
  return stateVector;
}

function isEmptyUpdate(update: Uint8Array): boolean {
  try {
    const { structs, ds } = Y.decodeUpdate(update);
    return structs.length === 0 && ds.clients.size === 0;
  } catch {
    return false;
  }
}

function frame(type: number, write: (encoder: encoding.Encoder) => void): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, type);
  write(encoder);
  return encoding.toUint8Array(encoder);
}

function safeSend(peer: Peer, message: Uint8Array): void {
  try {
    peer.send(message);
  } catch {
    // Closed: its close listener disconnects it.
  }
}
