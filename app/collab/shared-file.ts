import { Prec } from "@codemirror/state";
import { keymap } from "@codemirror/view";
import { yCollab, yUndoManagerKeymap } from "y-codemirror.next";
import { WebsocketProvider } from "y-websocket";
import * as Y from "yjs";
import { SHARED_TEXT } from "../../protocol/collab";

/** The WebSocket base of a workspace's collab routes (worker/collab/collab-routes.ts). */
export function collabUrl(workspaceId: string): string {
  const url = new URL(`/ws/workspaces/${encodeURIComponent(workspaceId)}/collab`, location.href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return url.href;
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
  }

  /** The binding for this file's CodeMirror state (Ctrl/Cmd+Z goes to the shared undo, not CodeMirror's). */
  extension() {
    return [
      yCollab(this.text, this.provider.awareness, { undoManager: this.undoManager }),
      Prec.high(keymap.of(yUndoManagerKeymap)),
    ];
  }

  /**
   * Resolves once this page's edits so far have left the browser (the socket's buffer is empty), so a save
   * asked for after them reaches the server behind them. Without a connection they wait in the document and
   * go when it reconnects: this resolves at once, and the save writes what the server has.
   */
  async sent(): Promise<void> {
    while (this.unsent()) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  /** Whether the open socket still holds some of this page's edits (see {@link sent}). */
  unsent(): boolean {
    const ws = this.provider.ws;
    return ws !== null && ws.readyState === WebSocket.OPEN && ws.bufferedAmount > 0;
  }

  destroy(): void {
    this.undoManager.destroy();
    this.provider.destroy();
    this.doc.destroy();
  }
}
