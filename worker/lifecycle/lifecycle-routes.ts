import { z } from "zod";
import { ErrorCode } from "../../protocol/errors";
import { MAX_FILE_BODY_BYTES } from "../../protocol/files";
import { MACHINES, type Machine, type WorkspaceSettingsRequest, type WorkspaceStatus } from "../../protocol/workspace";
import { checkWorkspaceName, type WorkspaceNameRequest } from "../../protocol/workspaces";
import type { Body } from "../door/route";
import { none } from "../door/schema";
import { AppError } from "../errors";
import type { WorkspaceParts } from "../workspace-parts";
import { defineRoute, type WorkspaceRoute } from "../workspace-parts";
import { exportArchive, importArchive } from "./archive";

/**
 * The workspace itself, `/api/workspaces/{id}...`: its name, its state,
 * save, stop and start fresh, export and import (docs/api.md lists them).
 */
/**
 * The status the routes answer: the lifecycle's, the backups' health and, while
 * a container runs, how file operations reach it (Files.agentMode).
 */
async function statusOf(workspace: WorkspaceParts, state: Promise<WorkspaceStatus>): Promise<WorkspaceStatus> {
  const status = await state;
  const agent = workspace.files.agentMode;
  return {
    ...status,
    ...(status.state === "running" && agent ? { agent } : {}),
    ...(status.state === "running" && agent === "resident" && workspace.sandbox.agentTransport
      ? { agentTransport: workspace.sandbox.agentTransport }
      : {}),
    backup: await workspace.backups.health(),
  };
}

const machines = Object.keys(MACHINES) as [Machine, ...Machine[]];
const machine = z.enum(machines, { error: `machine must be one of ${machines.join(", ")}.` });
const name = z
  .unknown()
  .optional()
  .transform((value, ctx) => {
    const checked = checkWorkspaceName(value);
    if ("error" in checked) {
      ctx.addIssue({ code: "custom", message: checked.error, params: { code: ErrorCode.INVALID_WORKSPACE_NAME } });
      return z.NEVER;
    }
    return checked.name;
  });

export const LIFECYCLE_ROUTES: WorkspaceRoute[] = [
  defineRoute({
    method: "PATCH",
    path: "/",
    role: "editor",
    wake: "never",
    doc: "Renames the workspace: `{name}` (400 INVALID_WORKSPACE_NAME when it is not a name). Answers the renamed WorkspaceSummary.",
    input: { body: { json: z.object({ name }) satisfies Body<WorkspaceNameRequest> } },
    handle: async ({ body, workspace }) => Response.json(await workspace.record.rename(body.name)),
  }),
  defineRoute({
    method: "DELETE",
    path: "/",
    role: "owner",
    wake: "never",
    doc: "Deletes the workspace: its container and everything stored are gone. 204.",
    spare: true,
    input: { query: none },
    handle: async ({ workspace }) => {
      await workspace.record.destroy();
      return new Response(null, { status: 204 });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/status",
    role: "viewer",
    wake: "never",
    doc: "The workspace's WorkspaceStatus: its state, its backups' health and, while it runs, how file operations reach it. Read-only: it never starts anything and does not count as use (`?wake=0` is accepted and changes nothing).",
    spare: true,
    // `?wake=0` is accepted and changes nothing: a GET never wakes.
    input: { query: none },
    handle: async ({ workspace }) => Response.json(await statusOf(workspace, workspace.lifecycle.status(workspace.id))),
  }),
  defineRoute({
    method: "POST",
    path: "/wake",
    // Waking is what reading a sleeping workspace takes, so a viewer may.
    role: "viewer",
    wake: "wake",
    doc: "Starts or wakes the workspace (from its latest snapshot); answers its WorkspaceStatus once it answers. A viewer's too: waking is what reading a sleeping workspace takes.",
    input: { query: none },
    handle: async ({ workspace }) => Response.json(await statusOf(workspace, workspace.lifecycle.wake(workspace.id))),
  }),
  defineRoute({
    method: "POST",
    path: "/save",
    role: "editor",
    wake: "never",
    doc: "A snapshot now: answers `{snapshotId, savedAt}` once its id is stored.",
    input: { query: none },
    handle: async ({ workspace }) => Response.json(await workspace.lifecycle.save()),
  }),
  defineRoute({
    method: "POST",
    path: "/stop",
    role: "editor",
    wake: "never",
    doc: "Saves, then stops the container; the next use wakes it from that snapshot. Answers `{snapshotId, savedAt}`.",
    input: { query: none },
    handle: async ({ workspace }) => Response.json(await workspace.lifecycle.stop()),
  }),
  defineRoute({
    method: "POST",
    path: "/reset",
    role: "editor",
    wake: "never",
    doc: "After a snapshot failed to restore: forgets it, so the next start is from the template. 204.",
    input: { query: none },
    handle: async ({ workspace }) => {
      await workspace.record.reset();
      return new Response(null, { status: 204 });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/settings",
    role: "viewer",
    wake: "never",
    doc: "WorkspaceSettings: the machine size.",
    input: { query: none },
    handle: async ({ workspace }) => Response.json(await workspace.record.settings()),
  }),
  defineRoute({
    method: "PUT",
    path: "/settings",
    role: "editor",
    wake: "never",
    doc: "`{machine}`: the machine size, kept; a running workspace restarts on it with its files. Answers WorkspaceSettings.",
    input: { body: { json: z.object({ machine }) satisfies Body<WorkspaceSettingsRequest> } },
    handle: async ({ body, workspace }) => Response.json(await workspace.record.updateSettings(body.machine)),
  }),
  defineRoute({
    method: "GET",
    path: "/export",
    role: "viewer",
    wake: "read",
    doc: "/workspace as a .tar.gz download, streamed from the running container.",
    input: { query: none },
    handle: ({ workspace }) => exportArchive(workspace.lifecycle, workspace.sandbox, workspace.id),
  }),
  defineRoute({
    method: "POST",
    path: "/import",
    role: "editor",
    wake: "wake",
    doc: "A .tar.gz body unpacked into an empty /workspace (`replace=true`: replacing everything in it), then saved; answers ImportResult `{entries, saved}`. 409 WORKSPACE_NOT_EMPTY when it has files and `replace` is not set; 400 INVALID_ARCHIVE for a body that is no gzip-compressed tar (a refused archive leaves /workspace as it was).",
    input: {
      query: z.object({
        replace: z
          .string()
          .optional()
          .transform((value) => value === "true"),
      }),
      body: { stream: MAX_FILE_BODY_BYTES },
    },
    handle: async ({ query, request, workspace }) => {
      if (!request.body) throw new AppError(ErrorCode.INVALID_ARCHIVE, "Send the .tar.gz archive as the request body.");
      return Response.json(await importArchive(workspace.lifecycle, workspace.sandbox, request.body, query.replace));
    },
  }),
];
