import { Hono } from "hono";
import { isBackupId } from "../../protocol/backups";
import { ErrorCode } from "../../protocol/errors";
import { AppError } from "../errors";
import { readJsonObject } from "../http";
import { type AppEnv, requestedWorkspace } from "../workspace-access";

/**
 * `/api/workspaces/{id}/backups...`: the user's files in R2 (worker/backups/).
 * The workspace's owner only (its Durable Object checks); a backup id of
 * another workspace, or not one at all, answers 404 BACKUP_NOT_FOUND.
 */
export const backupRoutes = new Hono<AppEnv>();

backupRoutes.get("/:id/backups", async (c) => c.json(await requestedWorkspace(c).stub.listBackups()));

/** A backup now; answers the record once the object is stored. */
backupRoutes.post("/:id/backups", async (c) => c.json(await requestedWorkspace(c).stub.createBackup(), 201));

/** Backs up the files as they are (the undo), then restores this backup; answers both records. */
backupRoutes.post("/:id/backups/:backupId/restore", async (c) => {
  const { stub } = requestedWorkspace(c);
  return c.json(await stub.restoreBackup(backupId(c.req.param("backupId"))));
});

/** `?format=zst`: the object as stored; otherwise a `.tar.gz` made in the running container. */
backupRoutes.get("/:id/backups/:backupId/download", async (c) => {
  const { stub } = requestedWorkspace(c);
  const id = backupId(c.req.param("backupId"));
  const format = c.req.query("format") ?? "gz";
  if (format !== "gz" && format !== "zst") {
    throw new AppError(ErrorCode.BAD_REQUEST, 'format must be "gz" (a .tar.gz, the default) or "zst" (as stored).');
  }
  return stub.fetch(new Request(`https://workspace/backups/download?id=${id}&format=${format}`));
});

backupRoutes.delete("/:id/backups/:backupId", async (c) => {
  const { stub } = requestedWorkspace(c);
  await stub.deleteBackup(backupId(c.req.param("backupId")));
  return c.body(null, 204);
});

/** `{ "pinned": true | false }`: a pinned backup is kept whatever the retention rule says. */
backupRoutes.post("/:id/backups/:backupId/pin", async (c) => {
  const { stub } = requestedWorkspace(c);
  const id = backupId(c.req.param("backupId"));
  const body = await readJsonObject(c.req.raw);
  if (typeof body.pinned !== "boolean") throw new AppError(ErrorCode.BAD_REQUEST, "pinned must be true or false.");
  return c.json(await stub.pinBackup(id, body.pinned));
});

function backupId(value: string | undefined): string {
  if (!value || !isBackupId(value)) throw new AppError(ErrorCode.BACKUP_NOT_FOUND, "No backup with this id.");
  return value;
}

/** "Move to the current image": back up, stop, start on the current image with those files, run the setup recipe. */
backupRoutes.post("/:id/upgrade", async (c) => {
  const { id, stub } = requestedWorkspace(c);
  return c.json(await stub.upgrade(id));
});
