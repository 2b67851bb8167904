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
 * save, stop and start fresh, export and import.
 *
 *   PATCH  /            {name}; the renamed WorkspaceSummary
 *   DELETE /            204: the container and everything stored are gone
 *   GET    /status      WorkspaceStatus, read-only: never starts anything, not counted as use
 *   POST   /wake        starts or wakes it (from its latest snapshot); WorkspaceStatus once it answers
 *   POST   /save        a snapshot now: {snapshotId, savedAt} once its id is stored
 *   POST   /stop        save, then stop the container; the next use wakes it from that snapshot
 *   POST   /reset       after a snapshot failed to restore: forget it; the next start is from the template
 *   GET    /export      /workspace as a streamed tar.gz download
 *   POST   /import[?replace=true]  a tar.gz body unpacked into an empty /workspace (or replacing it), then saved
 *   GET    /settings    WorkspaceSettings: the machine size
 *   PUT    /settings    {machine}: kept; a running workspace restarts on it with its files
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
    input: { body: { json: z.object({ name }) satisfies Body<WorkspaceNameRequest> } },
    handle: async ({ body, workspace }) => Response.json(await workspace.record.rename(body.name)),
  }),
  defineRoute({
    method: "DELETE",
    path: "/",
    role: "owner",
    wake: "never",
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
    input: { query: none },
    handle: async ({ workspace }) => Response.json(await statusOf(workspace, workspace.lifecycle.wake(workspace.id))),
  }),
  defineRoute({
    method: "POST",
    path: "/save",
    role: "editor",
    wake: "never",
    input: { query: none },
    handle: async ({ workspace }) => Response.json(await workspace.lifecycle.save()),
  }),
  defineRoute({
    method: "POST",
    path: "/stop",
    role: "editor",
    wake: "never",
    input: { query: none },
    handle: async ({ workspace }) => Response.json(await workspace.lifecycle.stop()),
  }),
  defineRoute({
    method: "POST",
    path: "/reset",
    role: "editor",
    wake: "never",
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
    input: { query: none },
    handle: async ({ workspace }) => Response.json(await workspace.record.settings()),
  }),
  defineRoute({
    method: "PUT",
    path: "/settings",
    role: "editor",
    wake: "never",
    input: { body: { json: z.object({ machine }) satisfies Body<WorkspaceSettingsRequest> } },
    handle: async ({ body, workspace }) => Response.json(await workspace.record.updateSettings(body.machine)),
  }),
  defineRoute({
    method: "GET",
    path: "/export",
    role: "viewer",
    wake: "read",
    input: { query: none },
    handle: ({ workspace }) => exportArchive(workspace.lifecycle, workspace.sandbox, workspace.id),
  }),
  defineRoute({
    method: "POST",
    path: "/import",
    role: "editor",
    wake: "wake",
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
