/**
 * Co-editing (issue 24): open text files are shared Yjs documents, one per
 * path, held by the Workspace; each page speaks the standard y-protocols sync
 * and awareness messages over a WebSocket (y-websocket's provider).
 *
 *   GET  /ws/workspaces/{id}/collab/file?path=P[&wake=0]   the shared document of file P (viewer: read only)
 *   GET  /ws/workspaces/{id}/collab/presence               who is in the workspace (awareness only)
 *   POST /api/workspaces/{id}/collab/save?path=P           writes the shared text to disk -> CollabSaved
 *
 * A page saves on its file's socket instead ({@link COLLAB_MESSAGE_SAVE}):
 * behind every edit it sent before, without the request's own way through
 * the Worker; the POST is for other clients (it writes what the server has:
 * a page whose socket is down brings it back and saves on it, with its edits).
 *
 * A document's Y.Text is named {@link SHARED_TEXT}. The server stamps every
 * awareness state with the caller's own `user` (name and colour), so nobody
 * can show up as someone else.
 */
import type { FileInfo } from "./files";

/** The name of the Y.Text in every shared file document. */
export const SHARED_TEXT = "text";

/** Files larger than this are not shared (they open as before: one person's buffer, saved with If-Match). */
export const MAX_SHARED_FILE_BYTES = 512 * 1024;

/** Close codes of a collab socket, besides the session's 1008. */
export const CollabClose = {
  /** A text frame: the protocol is binary y-protocols messages. */
  TEXT_FRAME: 1003,
  /** A binary frame that is not a y-protocols message this server understands. */
  BAD_FRAME: 1007,
  /** A frame larger than {@link MAX_COLLAB_FRAME_BYTES}. */
  TOO_LARGE: 1009,
} as const;

export const MAX_COLLAB_FRAME_BYTES = 4 * 1024 * 1024;

/**
 * One awareness state (a cursor, or a page's presence: its open files), as
 * JSON. Every other page gets each one, so one page may not flood the room.
 */
export const MAX_AWARENESS_STATE_BYTES = 64 * 1024;

/** Awareness client ids one socket may speak for (y-websocket's provider uses one). */
export const MAX_AWARENESS_CLIENTS_PER_PEER = 4;

/** The open files a page publishes in its presence state, at most (a page reading others keeps as many). */
export const MAX_PRESENCE_FILES = 200;

/** Who a participant is, as the server stamps it on their awareness state. */
export interface CollabUser {
  id: string;
  name: string;
  /** A CSS colour, the same for one person everywhere. */
  color: string;
  /** The same colour, translucent (selections). */
  colorLight: string;
}

/**
 * A page's awareness state in the presence room. Each page publishes its
 * own; the server only stamps `user` (anything else is what that page says,
 * so a page reads others' states defensively: app/collab/presence-model.ts).
 */
export interface PresenceState {
  user?: CollabUser;
  /** The files this page has open, and the one it shows. */
  files?: string[];
  active?: string | null;
  /** The first line (1-based) the page shows of `active`: others following it scroll there. */
  line?: number;
  /** The terminal this page shows. */
  terminal?: string | null;
}

/** `POST .../collab/save`: the file as written and the exact text it holds. */
export interface CollabSaved {
  file: FileInfo;
  text: string;
}

/**
 * A save asked for on a file's socket, besides y-protocols' message types:
 * the page sends [COLLAB_MESSAGE_SAVE, varUint id], the server answers
 * [COLLAB_MESSAGE_SAVE, varUint id, varString JSON {@link CollabSaveAnswer}]
 * once the file is written (or not). A viewer's is refused (FORBIDDEN).
 */
export const COLLAB_MESSAGE_SAVE = 100;

/** The answer to a save on the socket: what POST /collab/save answers, or its error. */
export type CollabSaveAnswer = { saved: CollabSaved } | { error: { code: string; message: string } };
