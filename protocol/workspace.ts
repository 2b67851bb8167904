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

/**
 * The running container replaced one that vanished without a save (removed
 * from outside, a host failure): what it came back from, so the page can say
 * what was lost. Reported until the workspace next sleeps on purpose.
 */
export interface RestoreNotice {
  /** When the new container started (ISO 8601). */
  at: string;
  /** The latest snapshot, or the workspace's template when nothing had been saved. */
  from: "snapshot" | "template";
  /** When that snapshot was taken (ISO 8601): changes made after it are gone. Null for the template. */
  savedAt: string | null;
}

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
  /** The container image a running workspace started from (shown for support). */
  image?: string;
  /** Set when the running container replaced one that vanished: see {@link RestoreNotice}. */
  restored?: RestoreNotice;
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
