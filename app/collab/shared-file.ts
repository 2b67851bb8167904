import { Prec } from "@codemirror/state";
import { keymap } from "@codemirror/view";
import * as decoding from "lib0/decoding";
import * as encoding from "lib0/encoding";
import { yCollab, yUndoManagerKeymap } from "y-codemirror.next";
import { WebsocketProvider } from "y-websocket";
import * as Y from "yjs";
import { COLLAB_MESSAGE_SAVE, type CollabSaveAnswer, type CollabSaved, SHARED_TEXT } from "../../protocol/collab";
import { ErrorCode, errorStatus } from "../../protocol/errors";
import { ApiRequestError, ClientErrorCode, socketUrl } from "../api/http";
import { keepAwarenessAcrossReconnects } from "./awareness-reconnect";

/** The WebSocket base of a workspace's collab routes (worker/collab/collab-routes.ts). */
export function collabUrl(workspaceId: string): string {
  return socketUrl(`/ws/workspaces/${encodeURIComponent(workspaceId)}/collab`).href;
}

/** Connections that may fail before the first sync before a file opens unshared instead. */
const ATTEMPTS_BEFORE_SYNC = 3;

/** How long a save waits for its file's socket to be back (as long as a file waits for it when it opens). */
const SAVE_RECONNECT_TIMEOUT_MS = 30_000;

/** The shared documents open on this page, by path (for the browser tests' hooks, app/test-hooks.ts). */
export const openSharedFiles = new Map<string, SharedFile>();

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
  /** Saves waiting for the socket to be back, told when the file closes. */
  private readonly closing = new Set<() => void>();

  constructor(
    workspaceId: string,
    readonly path: string,
  ) {
    this.provider = new WebsocketProvider(collabUrl(workspaceId), "file", this.doc, {
      params: { path },
      // The server holds the document: tabs of one browser go through it too.
      disableBc: true,
      maxBackoffTime: 5000,
    });
    // The others' cursors, and this page's, come back with the socket.
    keepAwarenessAcrossReconnects(this.provider);
    openSharedFiles.set(path, this);
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
    // A socket that closed answers no save it was asked for: each is asked again once the socket is back
    // (saving the shared text twice writes the same text).
    this.provider.on("connection-close", () => {
      const waiting = [...this.saves.values()];
      this.saves.clear();
      for (const { resolve, reject } of waiting) this.save().then(resolve, reject);
    });
  }

  /**
   * Writes the shared text to disk, with this page's edits so far: on the socket, behind them (no wait for
   * them to leave, and not the request's way through the Worker). A socket that is not connected is
   * brought back first: once it synced again the server has every edit this page made meanwhile (it
   * answers the server's sync step 1, sent first, before the server's step 2 marks it synced). The POST
   * would write only what the server has, without this page's last keystrokes.
   */
  async save(): Promise<CollabSaved> {
    if (!this.isSynced()) await this.reconnected();
    const ws = this.provider.ws as WebSocket;
    const id = ++this.lastSave;
    const answered = new Promise<CollabSaved>((resolve, reject) => this.saves.set(id, { resolve, reject }));
    const encoder = encoding.createEncoder();
    encoding.writeVarUint(encoder, COLLAB_MESSAGE_SAVE);
    encoding.writeVarUint(encoder, id);
    ws.send(encoding.toUint8Array(encoder));
    return answered;
  }

  private isSynced(): boolean {
    return this.provider.ws?.readyState === WebSocket.OPEN && this.provider.synced;
  }

  /**
   * Resolves once the socket is connected and synced again; rejects (NETWORK) when it is not back within
   * SAVE_RECONNECT_TIMEOUT_MS, or the file closed meanwhile. A save is the person's own act: this attempt
   * may wake a sleeping workspace (automatic reconnects ask not to), and it does not wait out the backoff.
   */
  private reconnected(): Promise<void> {
    return new Promise((resolve, reject) => {
      const done = (error?: ApiRequestError) => {
        clearTimeout(timer);
        this.provider.off("sync", synced);
        this.closing.delete(closed);
        if (error) reject(error);
        else resolve();
      };
      const synced = (isSynced: boolean) => {
        if (isSynced && this.isSynced()) done();
      };
      const closed = () =>
        done(new ApiRequestError(0, ErrorCode.INVALID_STATE, `"${this.path}" was closed before it was saved.`));
      const timer = setTimeout(
        () =>
          done(
            new ApiRequestError(
              0,
              ClientErrorCode.NETWORK,
              `"${this.path}" is not connected to the workspace (not back within ${SAVE_RECONNECT_TIMEOUT_MS / 1000} s): your edits are kept here; save again later.`,
            ),
          ),
        SAVE_RECONNECT_TIMEOUT_MS,
      );
      this.provider.on("sync", synced);
      this.closing.add(closed);
      this.provider.params = { path: this.path };
      // Between attempts (its backoff timer pending) the provider has no socket: one starts now. A provider
      // told to stay disconnected connects again too (the next attempt, when its socket is still closing).
      if (this.provider.ws === null || !this.provider.shouldConnect) this.provider.connect();
    });
  }

  /** The binding for this file's CodeMirror state (Ctrl/Cmd+Z goes to the shared undo, not CodeMirror's). */
  extension() {
    return [
      yCollab(this.text, this.provider.awareness, { undoManager: this.undoManager }),
      Prec.high(keymap.of(yUndoManagerKeymap)),
    ];
  }

  /** Closes the socket and keeps it closed until a save brings it back (a test hook: edits made meanwhile wait here). */
  disconnect(): void {
    this.provider.disconnect();
  }

  destroy(): void {
    if (openSharedFiles.get(this.path) === this) openSharedFiles.delete(this.path);
    for (const closed of [...this.closing]) closed();
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
