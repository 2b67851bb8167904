/**
 * What the editor model needs of co-editing (issue 24): a text file's shared
 * document (app/collab/shared-file.ts), and the few pure steps that keep a
 * buffer's CodeMirror state and that document's text the same while no view
 * shows the buffer (yCollab's sync is a view plugin: it runs only in the view).
 */
import type { ChangeSet, EditorState, Extension } from "@codemirror/state";
import { Transaction } from "@codemirror/state";
import type * as Y from "yjs";
import { type CollabSaved, MAX_SHARED_FILE_BYTES } from "../../protocol/collab";
import { imageTypeFor } from "./languages";

/** One open file's shared document, as the editor uses it. */
export interface SharedText {
  /** The shared text: everyone's edits, saved or not. */
  readonly text: Y.Text;
  /** Resolves once the text is the server's; rejects when the server would not share the file. */
  readonly synced: Promise<void>;
  /** The binding of a CodeMirror state to the text (remote cursors, own-edits-only undo). */
  extension(): Extension;
  /** Writes the shared text to disk, with this page's edits so far: the file as written and the text it holds. */
  save(): Promise<CollabSaved>;
  destroy(): void;
}

/** The workspace's shared documents (app/collab/collab-api.ts). */
export interface SharedDocuments {
  open(path: string): SharedText;
}

/** How long a file waits for its shared document before it opens unshared. */
export const SHARED_SYNC_TIMEOUT_MS = 30_000;

/** Whether opening `path` starts joining its shared document (images never are text). */
export function mayShare(path: string): boolean {
  return imageTypeFor(path) === undefined;
}

/** Whether a text file of `bytes` bytes is shared (larger ones keep one buffer per tab, saved with If-Match). */
export function sharedSize(bytes: number): boolean {
  return bytes <= MAX_SHARED_FILE_BYTES;
}

/**
 * Waits for a shared document: undefined once it has the server's text, else
 * why not (the server refused it, or it did not come in time).
 */
export async function whySharingFailed(
  shared: SharedText,
  timeoutMs = SHARED_SYNC_TIMEOUT_MS,
): Promise<string | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`the shared document did not arrive within ${timeoutMs / 1000} s`), timeoutMs);
  });
  try {
    return await Promise.race([
      shared.synced.then(
        () => undefined,
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A stored state brought to the shared text, as one change over the part
 * that differs (so the cursor stays where it can); the same state when it is.
 */
export function caughtUp(state: EditorState, text: string): EditorState {
  const doc = state.doc.toString();
  if (doc === text) return state;
  let start = 0;
  const shortest = Math.min(doc.length, text.length);
  while (start < shortest && doc.charCodeAt(start) === text.charCodeAt(start)) start++;
  let end = 0;
  while (end < shortest - start && doc.charCodeAt(doc.length - 1 - end) === text.charCodeAt(text.length - 1 - end)) {
    end++;
  }
  return state.update({
    changes: { from: start, to: doc.length - end, insert: text.slice(start, text.length - end) },
    // Others' edits are not this page's to undo.
    annotations: Transaction.addToHistory.of(false),
  }).state;
}

/** Makes a CodeMirror change (against the text as it was) in the shared text, as this page's own edit. */
export function applyToText(text: Y.Text, changes: ChangeSet): void {
  const apply = () => {
    // Positions are the old text's: each change shifts the ones after it.
    let shift = 0;
    changes.iterChanges((fromA, toA, _fromB, _toB, inserted) => {
      const insert = inserted.toString();
      if (toA > fromA) text.delete(fromA + shift, toA - fromA);
      if (insert.length > 0) text.insert(fromA + shift, insert);
      shift += insert.length - (toA - fromA);
    });
  };
  if (text.doc) text.doc.transact(apply);
  else apply();
}
