/**
 * Backups of a workspace's own files (`/workspace` and the user's home,
 * `/root`) in R2: versioned, kept apart from the system, which always comes
 * from the current image. See README "Workspaces that last".
 */

/** Why a backup was taken. */
export type BackupReason =
  /** Someone asked for it (`POST .../backups`). */
  | "manual"
  /** Saved before the container stopped (Save and sleep, idle stop). */
  | "stop"
  /** The daily backup of a workspace in use. */
  | "daily"
  /** Taken right before a restore replaced the files, so the restore can be undone. */
  | "before-restore"
  /** Taken before a move to the current image. */
  | "upgrade";

/** One backup: `GET /api/workspaces/{id}/backups` lists them, newest first. */
export interface BackupRecord {
  /** Random; names the object in R2 (under the workspace's prefix). */
  id: string;
  /** ISO 8601 */
  createdAt: string;
  /** Bytes of the compressed archive (`tar` compressed with `zstd`). */
  size: number;
  /** SHA-256 of the compressed archive, hex: a restore checks it before anything changes. */
  sha256: string;
  /** The directories it holds, absolute. */
  dirs: string[];
  /** The image the container ran when it was taken. */
  image: string;
  reason: BackupReason;
  /** Kept whatever the retention rule says, until unpinned or deleted. */
  pinned: boolean;
}

/** `GET /api/workspaces/{id}/backups` */
export interface BackupList {
  backups: BackupRecord[];
  /** The latest attempt's outcome (see {@link BackupHealth}). */
  backup: BackupHealth;
}

/** `GET .../status` `backup`: when the latest backup was taken, and the error of a later attempt that failed. */
export interface BackupHealth {
  /** ISO 8601, or null when there is none yet. */
  lastAt: string | null;
  /** Set when the latest attempt failed (R2 unreachable, tar failed); it is tried again later. */
  lastError?: string;
}

/** `POST .../backups/{backupId}/restore` */
export interface RestoreResult {
  /** The backup now in place. */
  restored: BackupRecord;
  /** The backup of the files as they were right before, to undo the restore with. */
  undo: BackupRecord;
}

/** `POST .../backups/{backupId}/pin` body. */
export interface PinRequest {
  pinned: boolean;
}

/** A backup id: 16-32 lowercase letters and digits (made by the Worker; anything else names nothing). */
export function isBackupId(value: string): boolean {
  return /^[a-z0-9]{16,32}$/.test(value);
}
