import type { BackupHealth } from "./backups";
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

/**
 * The steps of a start, in order. Waking from a snapshot begins with
 * `restoring-snapshot`; a start from the image plus the latest backup has
 * `restoring-backup` once the container answers.
 */
export type BootPhase = "restoring-snapshot" | "starting-container" | "restoring-backup" | "ready";

/**
 * Why a container started from the current image plus the latest backup
 * rather than from the snapshot: the snapshot was made from an older image,
 * was too close to its 30-day expiry (or past it), or could not be restored.
 */
export type MoveReason = "image-changed" | "snapshot-expired" | "snapshot-unavailable";

/**
 * What the running container came back from, when the page should say so:
 * it replaced one that vanished without a save (removed from outside, a host
 * failure), or it moved to the current image with the files of the latest
 * backup. Reported until the workspace next sleeps on purpose.
 */
export interface RestoreNotice {
  /** When the new container started (ISO 8601). */
  at: string;
  /** The latest snapshot, the latest backup (on the current image), or the template when nothing was saved. */
  from: "snapshot" | "backup" | "template";
  /** When that snapshot or backup was taken (ISO 8601): changes made after it are gone. Null for the template. */
  savedAt: string | null;
  /** For `from: "backup"`: why the snapshot was not used. */
  reason?: MoveReason;
}

/** The system part of a running workspace: the image it runs and its machine. */
export interface SystemInfo {
  /** The image the container started from (null: a snapshot from before images were recorded). */
  image: string | null;
  /** Whether that is the current image (false: "Move to the current image" applies). */
  current: boolean;
  /** The instance type (vCPU, memory and disk). */
  machine: string;
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
  /**
   * How file operations reach a running container: "resident" through its
   * agent (one process for all of them), "fallback" through a process per
   * operation because the agent could not start (slower; an old image).
   */
  agent?: "resident" | "fallback";
  /**
   * How the resident agent's frames travel: "tcp" over a connection to a
   * port of the container (the fast path), "stdio" over its process's pipes
   * when that connection could not be made.
   */
  agentTransport?: "tcp" | "stdio";
  /** Set when the running container replaced one that vanished or moved images: see {@link RestoreNotice}. */
  restored?: RestoreNotice;
  /** While running: the image and machine; see {@link SystemInfo}. */
  system?: SystemInfo;
  /**
   * The machine size (instance type) it runs on, or starts on next when it
   * is not running: a change while asleep applies from the next start.
   */
  machine?: string;
  /** The latest backup of the user's files and the error of a later attempt that failed. */
  backup?: BackupHealth;
  error?: ErrorBody;
}

/**
 * The machine sizes a workspace may choose: Cloudflare Containers' instance
 * types, with vCPU, memory (GiB) and disk (GB). Locally the memory and CPU
 * are Docker limits; disk is not limited.
 */
export const MACHINES = {
  "standard-1": { vcpu: 0.5, memoryGiB: 4, diskGB: 8 },
  "standard-2": { vcpu: 1, memoryGiB: 6, diskGB: 12 },
  "standard-3": { vcpu: 2, memoryGiB: 8, diskGB: 16 },
  "standard-4": { vcpu: 4, memoryGiB: 12, diskGB: 20 },
} as const;

export type Machine = keyof typeof MACHINES;

/** `GET /api/workspaces/{id}/settings`; `PUT` takes the same body. */
export interface WorkspaceSettings {
  /** The machine its containers start on (the deployment's `SANDBOX_INSTANCE_TYPE` until one is chosen). */
  machine: string;
}

/** `PUT /api/workspaces/{id}/settings` */
export interface WorkspaceSettingsRequest {
  machine: Machine;
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
