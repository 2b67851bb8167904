import { Hono } from "hono";
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
import { AppError, notFound } from "../errors";
import { readJsonObject } from "../http";
import type { Grant } from "../previews/grants";
import { type AppEnv, requestedWorkspace } from "../workspace-access";

/** `/api/workspaces/{id}/previews...`: the owner's previews, share links, and the Run button's dev server. */
export const previewRoutes = new Hono<AppEnv>();

previewRoutes.get("/:id/previews", async (c) => {
  const { stub } = requestedWorkspace(c);
  const overview: PreviewsOverview = await stub.previewsOverview();
  return c.json(overview);
});

previewRoutes.post("/:id/previews/dev-server", async (c) => {
  const { stub } = requestedWorkspace(c);
  return c.json(await stub.runDevServer());
});

previewRoutes.delete("/:id/previews/dev-server", async (c) => {
  const { stub } = requestedWorkspace(c);
  await stub.stopDevServer();
  return c.body(null, 204);
});

/**
 * The owner's own access to a port's preview, for one pane: `?grant=ID`
 * renews that grant (same URL) for another 5 minutes; without it, or when it
 * was revoked or expired, a new grant with a new URL.
 */
previewRoutes.post("/:id/previews/:port", async (c) => {
  const { id, stub } = requestedWorkspace(c);
  const port = checkPort(c.req.param("port"));
  checkLabelLength(id, port);
  const grant = await stub.openPreview(port, c.req.query("grant") || undefined);
  const access: PreviewAccess = {
    id: grant.shareId ?? "",
    port,
    url: urlOf(c.req.url, c.env, id, grant),
    expiresAt: new Date(grant.expiresAt).toISOString(),
  };
  return c.json(access);
});

previewRoutes.post("/:id/previews/:port/shares", async (c) => {
  const { id, stub } = requestedWorkspace(c);
  const port = checkPort(c.req.param("port"));
  // JSON only (415 otherwise): a page elsewhere cannot send that without a CORS preflight.
  const body = (await readJsonObject(c.req.raw)) as Partial<CreateShareRequest>;
  const ttl = body.ttlSeconds;
  if (typeof ttl !== "number" || !Number.isInteger(ttl) || ttl < SHARE_TTL_MIN_SECONDS || ttl > SHARE_TTL_MAX_SECONDS) {
    throw new AppError(
      ErrorCode.INVALID_TTL,
      `ttlSeconds must be a whole number of seconds from ${SHARE_TTL_MIN_SECONDS} (5 minutes) to ${SHARE_TTL_MAX_SECONDS} (7 days).`,
    );
  }
  checkLabelLength(id, port);
  const grant = await stub.createShare(port, ttl);
  return c.json(shareOf(c.req.url, c.env, id, grant), 201);
});

/** The live grants of a port: share links, and beside them the owner's open panes (revoked the same way). */
previewRoutes.get("/:id/previews/:port/shares", async (c) => {
  const { id, stub } = requestedWorkspace(c);
  const port = checkPort(c.req.param("port"));
  const grants = (await stub.listShares(port)).map((g) => shareOf(c.req.url, c.env, id, g));
  const list: GrantList = {
    shares: grants.filter((g) => g.kind === "share"),
    owner: grants.filter((g) => g.kind === "owner"),
  };
  return c.json(list);
});

previewRoutes.delete("/:id/previews/:port/shares/:shareId", async (c) => {
  const { stub } = requestedWorkspace(c);
  const port = checkPort(c.req.param("port"));
  const revoked = await stub.revokeShare(port, c.req.param("shareId"));
  if (!revoked) throw notFound("No live share link with this id for this port: it may have expired or been revoked.");
  return c.body(null, 204);
});

function checkPort(value: string): number {
  const port = /^\d{1,5}$/.test(value) ? Number(value) : Number.NaN;
  if (!isPreviewPort(port)) {
    throw new AppError(
      ErrorCode.INVALID_PORT,
      `"${value.slice(0, 20)}" is not a port previews can use: use ${PREVIEW_PORT_MIN} to ${PREVIEW_PORT_MAX}.`,
    );
  }
  return port;
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
function urlOf(requestUrl: string, env: Env, workspaceId: string, grant: Grant): string {
  return previewUrl(
    { port: grant.port, workspaceId, token: grant.token },
    env.PREVIEW_DOMAIN,
    new URL(requestUrl).protocol,
  );
}

function shareOf(requestUrl: string, env: Env, workspaceId: string, grant: Grant): ShareLink {
  return {
    id: grant.shareId ?? "",
    kind: grant.kind,
    port: grant.port,
    url: urlOf(requestUrl, env, workspaceId, grant),
    expiresAt: new Date(grant.expiresAt).toISOString(),
  };
}
