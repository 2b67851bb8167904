import { z } from "zod";
import { ErrorCode } from "../../protocol/errors";
import {
  type CreateShareRequest,
  type GrantList,
  isPreviewPort,
  MAX_LABEL_LENGTH,
  PREVIEW_PORT_MAX,
  PREVIEW_PORT_MIN,
  type PreviewAccess,
  type PreviewsOverview,
  previewLabel,
  previewUrl,
  SHARE_TTL_MAX_SECONDS,
  SHARE_TTL_MIN_SECONDS,
  type ShareLink,
} from "../../protocol/previews";
import type { Body } from "../door/route";
import { none, refusal } from "../door/schema";
import { AppError, notFound } from "../errors";
import { isUnavailable } from "../sandbox/sandbox";
import type { WorkspaceParts } from "../workspace-parts";
import { defineRoute, type WorkspaceRoute } from "../workspace-parts";
import { DEV_SERVER_COMMAND } from "./dev-server";
import type { Grant } from "./grants";

/**
 * Previews, `/api/workspaces/{id}/previews...`: what listens, the Run
 * button's dev server, a pane's own access to a port, and share links.
 */
const port = z
  .string()
  .refine(
    (value) => /^\d{1,5}$/.test(value) && isPreviewPort(Number(value)),
    refusal(
      ErrorCode.INVALID_PORT,
      (value) =>
        `"${String(value).slice(0, 20)}" is not a port previews can use: use ${PREVIEW_PORT_MIN} to ${PREVIEW_PORT_MAX}.`,
    ),
  )
  .transform(Number);

const ttlSeconds = z
  .unknown()
  .optional()
  .refine(
    (ttl) =>
      typeof ttl === "number" && Number.isInteger(ttl) && ttl >= SHARE_TTL_MIN_SECONDS && ttl <= SHARE_TTL_MAX_SECONDS,
    refusal(
      ErrorCode.INVALID_TTL,
      `ttlSeconds must be a whole number of seconds from ${SHARE_TTL_MIN_SECONDS} (5 minutes) to ${SHARE_TTL_MAX_SECONDS} (7 days).`,
    ),
  )
  .transform((ttl) => ttl as number);

export const PREVIEW_ROUTES: WorkspaceRoute[] = [
  defineRoute({
    method: "GET",
    path: "/previews",
    role: "viewer",
    wake: "never",
    doc: "PreviewsOverview `{ports: [{port, process, loopbackOnly, forwarded?, forwardError?}], devServer}`: what listens, and the Run button's dev server. Never wakes, not counted as use.",
    input: { query: none },
    handle: async ({ workspace }) => Response.json((await overview(workspace)) satisfies PreviewsOverview),
  }),
  defineRoute({
    method: "POST",
    path: "/previews/dev-server",
    role: "editor",
    wake: "wake",
    doc: "Starts the dev server (the Run button: `npm run dev` in /workspace); answers DevServerState.",
    input: { query: none },
    handle: async ({ workspace }) => Response.json(await workspace.previews.runDevServer()),
  }),
  defineRoute({
    method: "DELETE",
    path: "/previews/dev-server",
    role: "editor",
    wake: "never",
    doc: "Stops the dev server. 204.",
    input: { query: none },
    handle: async ({ workspace }) => {
      await workspace.previews.stopDevServer();
      return new Response(null, { status: 204 });
    },
  }),
  defineRoute({
    method: "POST",
    path: "/previews/:port",
    role: "viewer",
    wake: "never",
    doc: "A preview pane's own access to `port`: its grant `grant` renewed, or a new one; answers PreviewAccess `{id, port, url, expiresAt}`. 400 INVALID_PORT for a port previews cannot use.",
    input: { params: z.object({ port }), query: z.object({ grant: z.string().optional() }) },
    handle: async ({ params, query, url, workspace }) => {
      checkLabelLength(workspace.id, params.port);
      const grant = await workspace.previews.openOwner(params.port, query.grant || undefined);
      const access: PreviewAccess = {
        id: grant.shareId ?? "",
        port: params.port,
        url: urlOf(url, workspace, grant),
        expiresAt: new Date(grant.expiresAt).toISOString(),
      };
      return Response.json(access);
    },
  }),
  defineRoute({
    method: "POST",
    path: "/previews/:port/shares",
    role: "editor",
    wake: "never",
    doc: "`{ttlSeconds}` (300 to 604800, else 400 INVALID_TTL): a share link to `port`, for anyone who has it until it expires; 201 ShareLink `{id, kind, port, url, expiresAt}`.",
    // JSON only (415 otherwise): a page elsewhere cannot send that without a CORS preflight.
    input: { params: z.object({ port }), body: { json: z.object({ ttlSeconds }) satisfies Body<CreateShareRequest> } },
    handle: async ({ params, body, url, workspace }) => {
      checkLabelLength(workspace.id, params.port);
      const grant = await workspace.previews.createShare(params.port, body.ttlSeconds);
      return Response.json(shareOf(url, workspace, grant), { status: 201 });
    },
  }),
  /** The live grants of a port: share links, and beside them the owner's open panes (revoked the same way). */
  defineRoute({
    method: "GET",
    path: "/previews/:port/shares",
    role: "viewer",
    wake: "never",
    doc: "GrantList `{shares, owner}`: the port's live share links, and beside them the owner's open panes (revoked the same way).",
    input: { params: z.object({ port }) },
    handle: async ({ params, url, workspace }) => {
      const grants = (await workspace.previews.grants.listed(params.port)).map((g) => shareOf(url, workspace, g));
      const list: GrantList = {
        shares: grants.filter((g) => g.kind === "share"),
        owner: grants.filter((g) => g.kind === "owner"),
      };
      return Response.json(list);
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/previews/:port/shares/:shareId",
    role: "editor",
    wake: "never",
    doc: "Revokes a share link (or a pane's grant): 204, or 404.",
    input: { params: z.object({ port, shareId: z.string() }) },
    handle: async ({ params, workspace }) => {
      if (!(await workspace.previews.revoke(params.port, params.shareId))) {
        throw notFound("No live share link with this id for this port: it may have expired or been revoked.");
      }
      return new Response(null, { status: 204 });
    },
  }),
];

/** What listens, for the preview pane's poll: it neither wakes a sleeping workspace nor counts as use. */
async function overview({ lifecycle, previews }: WorkspaceParts): Promise<PreviewsOverview> {
  const nothing: PreviewsOverview = { ports: [], devServer: { state: "stopped", command: DEV_SERVER_COMMAND } };
  // A container still starting has nothing listening yet (and may not answer exec).
  if (!lifecycle.isRunning) return nothing;
  try {
    const [ports, devServer] = await Promise.all([
      previews.listeningPorts({ wake: false }),
      previews.devServer({ wake: false }),
    ]);
    return { ports, devServer };
  } catch (error) {
    // It stopped (or vanished) between the check and the exec.
    if (isUnavailable(error)) return nothing;
    throw error;
  }
}

function checkLabelLength(workspaceId: string, port: number): void {
  if (previewLabel({ port, workspaceId, token: "x".repeat(24) }).length > MAX_LABEL_LENGTH) {
    throw new AppError(
      ErrorCode.BAD_REQUEST,
      "This workspace's id is too long for a preview hostname (one DNS label of 63 characters): use a workspace with a shorter id.",
    );
  }
}

/** Preview URLs use the app's own scheme: http under `vite dev`, https deployed. */
function urlOf(url: URL, workspace: WorkspaceParts, grant: Grant): string {
  return previewUrl(
    { port: grant.port, workspaceId: workspace.id, token: grant.token },
    workspace.env.PREVIEW_DOMAIN,
    url.protocol,
  );
}

function shareOf(url: URL, workspace: WorkspaceParts, grant: Grant): ShareLink {
  return {
    id: grant.shareId ?? "",
    kind: grant.kind,
    port: grant.port,
    url: urlOf(url, workspace, grant),
    expiresAt: new Date(grant.expiresAt).toISOString(),
  };
}
