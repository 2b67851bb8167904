import type { ErrorBody } from "./errors";

/**
 * Where a workspace is in its life:
 * - `starting`: waking or starting a container; `phase` says which step;
 * - `running`: the container answers `exec`;
 * - `saving`: running, and a snapshot of its disk is being taken;
 * - `sleeping`: no container, and the latest snapshot holds its files; the next use wakes it;
 * - `stopped`: no container and nothing saved yet (a new workspace);
 * - `failed`: the last start or restore failed; `error` says why and what to do.
 */
export type ContainerState = "starting" | "running" | "saving" | "sleeping" | "stopped" | "failed";

/** The steps of a start, in order. Waking from a snapshot begins with `restoring-snapshot`. */
export type BootPhase = "restoring-snapshot" | "starting-container" | "ready";

/** `GET /api/workspaces/{id}/status` */
export interface WorkspaceStatus {
  id: string;
  state: ContainerState;
  /** While `starting`: which step of the start. */
  phase?: BootPhase;
  /** `uname -a` from inside the container, when it is running. */
  kernel?: string;
  /** When the latest good snapshot was taken (ISO 8601), or null when nothing was saved yet. */
  lastSavedAt?: string | null;
  /** The id of that snapshot (the workspace's own; shown for support). */
  snapshotId?: string | null;
  /** Seconds without connections or requests after which the workspace saves and sleeps. */
  idleTimeoutSeconds?: number;
  error?: ErrorBody;
}

/** `POST /api/workspaces/{id}/save` and `.../stop` */
export interface SaveResult {
  snapshotId: string;
  /** ISO 8601 */
  savedAt: string;
}

/** `POST /api/workspaces/{id}/import` */
export interface ImportResult {
  /** Entries now at the top of /workspace. */
  entries: number;
  saved: SaveResult;
}
