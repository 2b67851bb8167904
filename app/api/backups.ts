import type { BackupList, BackupRecord, PinRequest, RestoreResult } from "../../protocol/backups";
import { apiJson, jsonBody, workspacePath } from "./http";

/** A workspace's backups: `/api/workspaces/{id}/backups` (worker/backups/backup-routes.ts). */
export class BackupsApi {
  constructor(readonly workspaceId: string) {}

  list(): Promise<BackupList> {
    return apiJson(this.path());
  }

  /** A backup now (wakes the workspace). */
  create(): Promise<BackupRecord> {
    return apiJson(this.path(), { method: "POST" });
  }

  /** Backs up the current files (the undo), then restores `id`. */
  restore(id: string): Promise<RestoreResult> {
    return apiJson(this.path(`/${id}/restore`), { method: "POST" });
  }

  remove(id: string): Promise<void> {
    return apiJson(this.path(`/${id}`), { method: "DELETE" });
  }

  pin(id: string, pinned: boolean): Promise<BackupRecord> {
    return apiJson(this.path(`/${id}/pin`), jsonBody("POST", { pinned } satisfies PinRequest));
  }

  /** "Move to the current image": backs up, then starts a new container from the current image with the files. */
  upgrade(): Promise<unknown> {
    return apiJson(workspacePath(this.workspaceId, "/upgrade"), { method: "POST" });
  }

  /** `.tar.gz` needs the workspace running (a GET never wakes it); `.tar.zst` is the object as stored. */
  downloadUrl(id: string, format: "gz" | "zst"): string {
    return this.path(`/${id}/download${format === "zst" ? "?format=zst" : ""}`);
  }

  private path(suffix = ""): string {
    return workspacePath(this.workspaceId, `/backups${suffix}`);
  }
}
