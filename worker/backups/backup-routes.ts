import { z } from "zod";
import { isBackupId, type PinRequest } from "../../protocol/backups";
import { ErrorCode } from "../../protocol/errors";
import type { Body } from "../door/route";
import { none, refusal } from "../door/schema";
import { defineRoute, type WorkspaceRoute } from "../workspace-parts";

/**
 * `/api/workspaces/{id}/backups...`: the user's files in R2 (worker/backups/).
 * A backup id of another workspace, or not one at all, answers 404 BACKUP_NOT_FOUND.
 *
 * The backups are the owner's alone (issue 42, finding 2): a backup holds /root (shell history,
 * tokens, dotfiles), which a viewer may not read, and the past, which an editor's shell cannot
 * read: files since removed, a token since revoked. They are also the owner's way back from any
 * change, an editor's included, so making (retention drops older ones), restoring, pinning and
 * deleting are the owner's too. The move to the current image stays an editor's: like a change
 * of machine size, it restarts the workspace with the files it has now, and reads no backup but
 * the one it takes.
 */
const backupId = z.string().refine(isBackupId, refusal(ErrorCode.BACKUP_NOT_FOUND, "No backup with this id."));

export const BACKUP_ROUTES: WorkspaceRoute[] = [
  defineRoute({
    method: "GET",
    path: "/backups",
    role: "owner",
    wake: "never",
    doc: "BackupList `{backups, backup}`: the workspace's backups and how the latest attempt went.",
    input: { query: none },
    handle: async ({ workspace }) => Response.json(await workspace.backups.list()),
  }),
  defineRoute({
    method: "POST",
    path: "/backups",
    role: "owner",
    wake: "wake",
    doc: "A backup now: 201 its record, once the object is stored.",
    input: { query: none },
    handle: async ({ workspace }) => Response.json(await workspace.backups.create(), { status: 201 }),
  }),
  defineRoute({
    method: "POST",
    path: "/backups/:backupId/restore",
    role: "owner",
    wake: "wake",
    doc: "Backs up the files as they are (the undo), then restores this backup; answers both records. 404 BACKUP_NOT_FOUND for an id not of this workspace.",
    input: { params: z.object({ backupId }) },
    handle: async ({ params, workspace }) => Response.json(await workspace.backups.restore(params.backupId)),
  }),
  defineRoute({
    method: "GET",
    path: "/backups/:backupId/download",
    role: "owner",
    // As stored it needs no container; as .tar.gz it waits for a running one itself (a GET never wakes).
    wake: "never",
    doc: "The backup as a .tar.gz of `workspace/` and `root/`, recompressed in the running container (409 WORKSPACE_ASLEEP while none runs: it never wakes one), or with `format=zst` the object as stored in R2, without a container.",
    input: {
      params: z.object({ backupId }),
      query: z.object({
        format: z
          .enum(["gz", "zst"], { error: 'format must be "gz" (a .tar.gz, the default) or "zst" (as stored).' })
          .optional()
          .transform((format) => format ?? "gz"),
      }),
    },
    handle: ({ params, query, workspace }) => workspace.backups.download(params.backupId, query.format),
  }),
  defineRoute({
    method: "DELETE",
    path: "/backups/:backupId",
    role: "owner",
    wake: "never",
    doc: "Deletes the backup. 204.",
    input: { params: z.object({ backupId }) },
    handle: async ({ params, workspace }) => {
      await workspace.backups.delete(params.backupId);
      return new Response(null, { status: 204 });
    },
  }),
  defineRoute({
    method: "POST",
    path: "/backups/:backupId/pin",
    role: "owner",
    wake: "never",
    doc: "`{pinned}`: a pinned backup is kept whatever the retention rule says; answers its record.",
    input: {
      params: z.object({ backupId }),
      body: {
        json: z.object({ pinned: z.boolean({ error: "pinned must be true or false." }) }) satisfies Body<PinRequest>,
      },
    },
    handle: async ({ params, body, workspace }) =>
      Response.json(await workspace.backups.pin(params.backupId, body.pinned)),
  }),
  defineRoute({
    method: "POST",
    path: "/upgrade",
    role: "editor",
    wake: "wake",
    doc: "Move to the current image: saves, takes a backup that must succeed, stops, and starts a new container from the current image with that backup and the setup recipe; answers WorkspaceStatus. 409 INVALID_STATE when it already runs the current image. An editor's, like a change of machine size.",
    input: { query: none },
    handle: async ({ workspace }) => Response.json(await workspace.backups.upgrade()),
  }),
];
