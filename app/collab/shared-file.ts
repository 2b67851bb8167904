import { Prec } from "@codemirror/state";
import { keymap } from "@codemirror/view";
import * as decoding from "lib0/decoding";
import * as encoding from "lib0/encoding";
import { yCollab, yUndoManagerKeymap } from "y-codemirror.next";
import { WebsocketProvider } from "y-websocket";
import * as Y from "yjs";
import { COLLAB_MESSAGE_SAVE, type CollabSaveAnswer, type CollabSaved, SHARED_TEXT } from "../../protocol/collab";
import { ErrorCode, errorStatus } from "../../protocol/errors";
import { ApiRequestError, socketUrl } from "../api/http";
import { keepAwarenessAcrossReconnects } from "./awareness-reconnect";

/** The WebSocket base of a workspace's collab routes (worker/collab/collab-routes.ts). */
export function collabUrl(workspaceId: string): string {
  return socketUrl(`/ws/workspaces/${encodeURIComponent(workspaceId)}/collab`).href;
}

/** Connections that may fail before the first sync before a file opens unshared instead. */
const ATTEMPTS_BEFORE_SYNC = 3;

/**
 * One open file's shared document: a Y.Doc kept in step with the
 * Workspace's over y-websocket's provider (which reconnects by itself), the
 * CodeMirror extension that binds it (yCollab: remote cursors with names,
 * and an undo that undoes only this page's own edits). The editor model
 * takes it as a `SharedText` (app/editor/shared-buffer.ts).
 */
export class SharedFile {
  readonly doc = new Y.Doc();
  readonly text = this.doc.getText(SHARED_TEXT);
  readonly provider: WebsocketProvider;
  /** Undoes this page's edits only: the server's and other pages' come with the provider as origin. */
  readonly undoManager = new Y.UndoManager(this.text);
  /** Resolves once the document has the server's text; rejects when the server would not share it. */
  readonly synced: Promise<void>;
  /** Saves asked for on the socket and not answered yet, by id. */
  private readonly saves = new Map<number, { resolve(saved: CollabSaved): void; reject(error: unknown): void }>();
  private lastSave = 0;

  constructor(
    workspaceId: string,
    readonly path: string,
    /** The save as a request (POST /collab/save), for when the socket is not connected. */
    private readonly saveByRequest: () => Promise<CollabSaved>,
  ) {
    this.provider = new WebsocketProvider(collabUrl(workspaceId), "file", this.doc, {
      params: { path },
      // The server holds the document: tabs of one browser go through it too.
      disableBc: true,
      maxBackoffTime: 5000,
    });
    // The others' cursors, and this page's, come back with the socket.
    keepAwarenessAcrossReconnects(this.provider);
    this.synced = new Promise((resolve, reject) => {
      let failures = 0;
      this.provider.on("sync", (synced: boolean) => {
        if (!synced) return;
        // Reconnects after this leave a sleeping workspace asleep.
        this.provider.params = { path, wake: "0" };
        resolve();
      });
      // The server refuses a file it cannot share (binary, too large) before the upgrade: the socket just fails.
      this.provider.on("connection-close", () => {
        if (this.provider.synced) return;
        failures++;
        if (failures >= ATTEMPTS_BEFORE_SYNC) reject(new Error(`"${path}" could not be opened as a shared document.`));
      });
    });
    // A file left before it synced (it turned out not to be shared text) rejects with nobody waiting.
    this.synced.catch(() => {});
    this.provider.messageHandlers[COLLAB_MESSAGE_SAVE] = (_encoder, decoder) => {
      const id = decoding.readVarUint(decoder);
      const answer = JSON.parse(decoding.readVarString(decoder)) as CollabSaveAnswer;
      const waiting = this.saves.get(id);
      this.saves.delete(id);
      if (!waiting) return;
      if ("saved" in answer) waiting.resolve(answer.saved);
      else waiting.reject(answerError(answer.error));
    };
    // A socket that closed answers no save it was asked for: each is made again as a request (saving the
    // shared text twice writes the same text; edits not sent yet go when the socket is back, as with any save).
    this.provider.on("connection-close", () => {
      const waiting = [...this.saves.values()];
      this.saves.clear();
      for (const { resolve, reject } of waiting) this.saveByRequest().then(resolve, reject);
    });
  }

  /**
   * Writes the shared text to disk, with this page's edits so far: on the socket, behind them (no wait for
   * them to leave, and not the request's way through the Worker); as a request when the socket is not
   * connected (its edits then wait in the document, and the save writes what the server has).
   */
  save(): Promise<CollabSaved> {
    const ws = this.provider.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN || !this.provider.synced) return this.saveByRequest();
    const id = ++this.lastSave;
    const answered = new Promise<CollabSaved>((resolve, reject) => this.saves.set(id, { resolve, reject }));
    const encoder = encoding.createEncoder();
    encoding.writeVarUint(encoder, COLLAB_MESSAGE_SAVE);
    encoding.writeVarUint(encoder, id);
    ws.send(encoding.toUint8Array(encoder));
    return answered;
  }

  /** The binding for this file's CodeMirror state (Ctrl/Cmd+Z goes to the shared undo, not CodeMirror's). */
  extension() {
    return [
      yCollab(this.text, this.provider.awareness, { undoManager: this.undoManager }),
      Prec.high(keymap.of(yUndoManagerKeymap)),
    ];
  }

  destroy(): void {
    const waiting = [...this.saves.values()];
    this.saves.clear();
    for (const { reject } of waiting) {
      reject(
        new ApiRequestError(0, ErrorCode.INVALID_STATE, `"${this.path}" was closed before its save was answered.`),
      );
    }
    this.undoManager.destroy();
    this.provider.destroy();
    this.doc.destroy();
  }
}

/** A save's error answered on the socket, as the POST would have thrown it. */
function answerError(error: { code: string; message: string }): ApiRequestError {
  const code = error.code as ErrorCode;
  return new ApiRequestError(code in ErrorCode ? errorStatus(code) : 500, code, error.message);
}
