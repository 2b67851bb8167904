/**
 * Wire types of the files API (`/api/workspaces/{id}/files...`). Paths are
 * relative to /workspace; "." is /workspace itself.
 */
export type FileType = "file" | "directory" | "symlink";

export interface FileEntry {
  name: string;
  type: FileType;
  /** Bytes (for a symlink: the length of its target). */
  size: number;
  /** Milliseconds since the Unix epoch. */
  modifiedAt: number;
}

/** `GET /files?path=DIR` */
export interface DirectoryListing {
  entries: FileEntry[];
}

/** `GET /files/stat?path=P`, and the answer to a save or a finished upload. */
export interface FileInfo {
  path: string;
  type: FileType;
  size: number;
  modifiedAt: number;
  /** The same value as the `ETag` header of `GET /files/content`. */
  etag: string;
}

/** One change seen in /workspace. `from` is set for "moved". */
export interface FileChange {
  type: "created" | "modified" | "deleted" | "moved";
  path: string;
  from?: string;
  /** True when the path is (was) a directory. */
  directory?: boolean;
}

/**
 * Server-sent events of `GET /files/watch`:
 *   event: ready    data: {}                      the watcher is live
 *   event: changes  data: {"changes": FileChange[]} (batched, ~50 ms)
 *   event: resync   data: {}                      events were lost: re-read what you show
 */
export interface FileChangesEvent {
  changes: FileChange[];
}

/** `POST /files/move` body. */
export interface MoveRequest {
  from: string;
  to: string;
  /** Replace an existing file at `to` (default: refuse with 409). */
  overwrite?: boolean;
}

/** Uploads are sent in chunks of this many bytes (below every Workers request-body limit); larger chunks get 413. */
export const UPLOAD_CHUNK_BYTES = 32 * 1024 * 1024;

/**
 * The largest single-request file body (`PUT /files/content`, `POST /import`):
 * 100 MB, what Workers accept on every plan. Larger files go up in chunks.
 */
export const MAX_FILE_BODY_BYTES = 100_000_000;
